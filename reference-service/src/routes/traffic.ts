// Operation 8: the traffic log of one device, as a page or (with `export`) a download.
import { mayAccess } from '../auth.ts';
import { notFound, validationFailed } from '../http/errors.ts';
import { positiveIntegerParam, queryInteger, queryOrder, querySingle, queryValues } from '../http/query.ts';
import { ok } from '../http/router.ts';
import type { V1Route } from '../http/router.ts';
import { TRAFFIC_ORDER_FIELDS } from '../storage/traffic.ts';
import { searchTerms, unservedSearch } from '../storage/traffic-search.ts';
import { QueryProblems } from './query-parameters.ts';
import { EXPORT_FORMATS, sendTrafficExport } from './traffic-export.ts';
import type { ExportFormat } from './traffic-export.ts';

const PARAMETERS = ['actions', 'actions[]', 'search', 'export', 'limit', 'offset', 'order'];

function exportFormat(query: URLSearchParams): ExportFormat | undefined {
  const value = querySingle(query, 'export');
  if (value === undefined) return undefined;
  if (!(EXPORT_FORMATS as readonly string[]).includes(value)) {
    throw validationFailed(`export must be one of ${EXPORT_FORMATS.join(', ')}.`, 'export');
  }
  return value as ExportFormat;
}

/** The search, refused (400) when no index can serve it: see unservedSearch. */
function searchParam(query: URLSearchParams): string | undefined {
  const value = querySingle(query, 'search');
  const unserved = unservedSearch(searchTerms(value));
  if (unserved !== undefined) throw validationFailed(unserved, 'search');
  return value;
}

export const trafficRoutes: readonly V1Route[] = [
  {
    method: 'GET',
    path: '/api/v1/atb/:id/traffic',
    async handler(ctx) {
      const deviceId = positiveIntegerParam(ctx.params, 'id');
      const problems = new QueryProblems();
      problems.rejectUnknown(ctx.query, PARAMETERS);
      const format = problems.take(() => exportFormat(ctx.query));
      // Checked with an export too (a malformed request is one whatever it asks for), but then
      // not applied: an export is every entry that matches.
      const limit = problems.take(() => queryInteger(ctx.query, 'limit', { min: 1, max: 1000, fallback: 10 }));
      const offset = problems.take(() => queryInteger(ctx.query, 'offset', { min: 0, fallback: 0 }));
      const order = problems.take(() => queryOrder(ctx.query, TRAFFIC_ORDER_FIELDS, '-date_time'));
      const search = problems.take(() => searchParam(ctx.query));
      problems.throwIfAny();

      const organizationId = await ctx.store.deviceOrganization(deviceId);
      if (organizationId === undefined || !mayAccess(ctx.principal, organizationId)) {
        throw notFound(`Protection device ${deviceId} does not exist.`);
      }
      const filter = { deviceId, actions: queryValues(ctx.query, 'actions'), search };
      if (format) {
        await sendTrafficExport(ctx.res, ctx.store, filter, order!, format);
        return;
      }
      return ok(await ctx.store.listTraffic(filter, order!, { limit: limit!, offset: offset! }));
    },
  },
];
