// Operations 5-6: web protection records (path segment `cloud-defender`).
import { mayAccess, requireAccess } from '../auth.ts';
import { notFound, validationFailed } from '../http/errors.ts';
import { positiveIntegerParam } from '../http/query.ts';
import { ok } from '../http/router.ts';
import type { V1Context, V1Route } from '../http/router.ts';
import { organizationExists } from '../storage/organizations.ts';
import {
  deleteWebProtectionRecord,
  getWebProtectionRecord,
  updateWebProtectionRecord,
} from '../storage/web-protection.ts';
import { parseWebProtectionPatch } from '../validation/web-protection.ts';

function recordNotFound(id: number) {
  return notFound(`Web protection record ${id} does not exist.`);
}

/** Whether the record exists and the key may see it (another organization's record is 404). */
function visible(ctx: V1Context, id: number): boolean {
  const record = getWebProtectionRecord(ctx.db, id);
  return record !== undefined && mayAccess(ctx.principal, record.organization.id);
}

export const webProtectionRoutes: readonly V1Route[] = [
  {
    method: 'PUT',
    path: '/api/v1/cloud-defender/:id',
    async handler(ctx) {
      const body = await ctx.readJson();
      const id = positiveIntegerParam(ctx.params, 'id');
      const patch = parseWebProtectionPatch(body);
      if (patch.organizationId !== undefined) requireAccess(ctx.principal, patch.organizationId, 'organization');
      const edit = ctx.db.transaction(() => {
        if (!visible(ctx, id)) throw recordNotFound(id);
        if (patch.organizationId !== undefined && !organizationExists(ctx.db, patch.organizationId)) {
          throw validationFailed(`Organization ${patch.organizationId} does not exist.`, 'organization');
        }
        return updateWebProtectionRecord(ctx.db, id, patch);
      });
      return ok({ data: edit.immediate() });
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/cloud-defender/:id',
    handler(ctx) {
      const id = positiveIntegerParam(ctx.params, 'id');
      const remove = ctx.db.transaction(() => {
        if (!visible(ctx, id)) throw recordNotFound(id);
        return deleteWebProtectionRecord(ctx.db, id);
      });
      return ok({ data: remove.immediate() });
    },
  },
];
