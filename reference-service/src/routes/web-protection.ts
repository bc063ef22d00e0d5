// Operations 5-6: web protection records (path segment `cloud-defender`).
import { requireAccess } from '../auth.ts';
import { notFound, validationFailed } from '../http/errors.ts';
import { positiveIntegerParam } from '../http/query.ts';
import { ok } from '../http/router.ts';
import type { V1Route } from '../http/router.ts';
import {
  deleteWebProtectionRecord,
  getWebProtectionRecord,
  UNKNOWN_ORGANIZATION,
  updateWebProtectionRecord,
} from '../storage/web-protection.ts';
import { parseWebProtectionPatch } from '../validation/web-protection.ts';

// Another organization's record is 404 too: the storage functions, given the key's scope, do not
// see it.
function recordNotFound(id: number) {
  return notFound(`Web protection record ${id} does not exist.`);
}

export const webProtectionRoutes: readonly V1Route[] = [
  {
    method: 'PUT',
    path: '/api/v1/cloud-defender/:id',
    async handler(ctx) {
      // Cheap things first: a record that does not exist (or that the key cannot see) is 404
      // before its body is read or validated.
      const id = positiveIntegerParam(ctx.params, 'id');
      const existing = getWebProtectionRecord(ctx.db, id);
      const scope = ctx.principal.organizationId;
      if (existing === undefined || (scope !== null && existing.organization.id !== scope)) throw recordNotFound(id);
      const patch = parseWebProtectionPatch(await ctx.readJson());
      if (patch.organizationId !== undefined) requireAccess(ctx.principal, patch.organizationId, 'organization');
      const record = updateWebProtectionRecord(ctx.db, ctx.principal.organizationId, id, patch);
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
    handler(ctx) {
      const id = positiveIntegerParam(ctx.params, 'id');
      const record = deleteWebProtectionRecord(ctx.db, ctx.principal.organizationId, id);
      if (!record) throw recordNotFound(id);
      return ok({ data: record });
    },
  },
];
