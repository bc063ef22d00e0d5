// Operation 7: the protection devices the key may see.
import { requireAccess } from '../auth.ts';
import { queryInteger, queryOrder, queryPositiveInteger, queryValues } from '../http/query.ts';
import { ok } from '../http/router.ts';
import type { V1Route } from '../http/router.ts';
import { DEVICE_ORDER_FIELDS } from '../storage/devices.ts';
import { QueryProblems } from './query-parameters.ts';

const PARAMETERS = ['limit', 'offset', 'order', 'organization', 'services', 'services[]'];

export const deviceRoutes: readonly V1Route[] = [
  {
    method: 'GET',
    path: '/api/v1/atb',
    async handler(ctx) {
      const problems = new QueryProblems();
      problems.rejectUnknown(ctx.query, PARAMETERS);
      const limit = problems.take(() => queryInteger(ctx.query, 'limit', { min: 1, max: 500, fallback: 50 }));
      const offset = problems.take(() => queryInteger(ctx.query, 'offset', { min: 0, fallback: 0 }));
      const order = problems.take(() => queryOrder(ctx.query, DEVICE_ORDER_FIELDS, 'id'));
      const named = problems.take(() => queryPositiveInteger(ctx.query, 'organization'));
      problems.throwIfAny();
      if (named !== undefined) requireAccess(ctx.principal, named, 'organization');
      return ok(
        await ctx.store.listDevices({
          // An organization key sees its own devices only, named or not.
          organizationId: named ?? ctx.principal.organizationId ?? undefined,
          services: queryValues(ctx.query, 'services'),
          order: order!,
          limit: limit!,
          offset: offset!,
        }),
      );
    },
  },
];
