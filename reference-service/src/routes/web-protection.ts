// Operations 5-6 and the read extensions E1-E2 (reference only): web protection records (path
// segment `cloud-defender`).
import { requireAccess } from '../auth.ts';
import { notFound, validationFailed } from '../http/errors.ts';
import { positiveIntegerParam, queryInteger, queryOrder } from '../http/query.ts';
import { ok } from '../http/router.ts';
import type { V1Route } from '../http/router.ts';
import { UNKNOWN_ORGANIZATION, WEB_PROTECTION_ORDER_FIELDS } from '../storage/web-protection.ts';
import { parseWebProtectionPatch } from '../validation/web-protection.ts';
import { QueryProblems } from './query-parameters.ts';

const LIST_PARAMETERS = ['limit', 'offset', 'order'];

// Another organization's record is 404 too: the storage functions, given the key's scope, do not
// see it.
function recordNotFound(id: number) {
  return notFound(`Web protection record ${id} does not exist.`);
}

export const webProtectionRoutes: readonly V1Route[] = [
  {
    // E1: the key's organization's records, every record for an admin key.
    method: 'GET',
    path: '/api/v1/cloud-defender',
    async handler(ctx) {
      const problems = new QueryProblems();
      problems.rejectUnknown(ctx.query, LIST_PARAMETERS);
      const limit = problems.take(() => queryInteger(ctx.query, 'limit', { min: 1, max: 500, fallback: 50 }));
      const offset = problems.take(() => queryInteger(ctx.query, 'offset', { min: 0, fallback: 0 }));
      const order = problems.take(() => queryOrder(ctx.query, WEB_PROTECTION_ORDER_FIELDS, 'id'));
      problems.throwIfAny();
      return ok(await ctx.store.pageWebProtectionRecords(ctx.principal.organizationId, { order: order!, limit: limit!, offset: offset! }));
    },
  },
  {
    // E2: one record, 404 when absent or another organization's.
    method: 'GET',
    path: '/api/v1/cloud-defender/:id',
    async handler(ctx) {
      const id = positiveIntegerParam(ctx.params, 'id');
      const record = await ctx.store.getWebProtectionRecord(id);
      const scope = ctx.principal.organizationId;
      if (record === undefined || (scope !== null && record.organization.id !== scope)) throw recordNotFound(id);
      return ok({ data: record });
    },
  },
  {
    method: 'PUT',
    path: '/api/v1/cloud-defender/:id',
    async handler(ctx) {
      // Cheap things first: a record that does not exist (or that the key cannot see) is 404
      // before its body is read or validated.
      const id = positiveIntegerParam(ctx.params, 'id');
      const existing = await ctx.store.getWebProtectionRecord(id);
      const scope = ctx.principal.organizationId;
      if (existing === undefined || (scope !== null && existing.organization.id !== scope)) throw recordNotFound(id);
      const patch = parseWebProtectionPatch(await ctx.readJson());
      if (patch.organizationId !== undefined) requireAccess(ctx.principal, patch.organizationId, 'organization');
      const record = await ctx.store.updateWebProtectionRecord(ctx.principal.organizationId, id, patch);
      if (record === undefined) throw recordNotFound(id);
      if (record === UNKNOWN_ORGANIZATION) {
        throw validationFailed(`Organization ${patch.organizationId} does not exist.`, 'organization');
      }
      return ok({ data: record });
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/cloud-defender/:id',
    async handler(ctx) {
      const id = positiveIntegerParam(ctx.params, 'id');
      const record = await ctx.store.deleteWebProtectionRecord(ctx.principal.organizationId, id);
      if (!record) throw recordNotFound(id);
      return ok({ data: record });
    },
  },
];
