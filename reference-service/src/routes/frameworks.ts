// Operations 1-4: security frameworks of an organization.
import { requireAccess } from '../auth.ts';
import type { Principal } from '../auth.ts';
import { invalidInput, notFound, problem, validationFailed } from '../http/errors.ts';
import type { EnvelopeMessage } from '../http/errors.ts';
import { parsePositiveInteger, queryPositiveInteger } from '../http/query.ts';
import { created, ok } from '../http/router.ts';
import type { V1Context, V1Route } from '../http/router.ts';
import { parseFrameworkBody } from '../validation/frameworks.ts';

/** Path ids that must be positive integers; 400 naming every one that is not. */
function pathIds<N extends string>(ctx: V1Context, names: readonly N[]): Record<N, number> {
  const ids = {} as Record<N, number>;
  const problems: EnvelopeMessage[] = [];
  for (const name of names) {
    const value = parsePositiveInteger(ctx.params[name] ?? '');
    if (value === undefined) problems.push(problem.invalid(name, `${name} must be a positive integer.`));
    else ids[name] = value;
  }
  if (problems.length > 0) throw invalidInput(problems);
  return ids;
}

/**
 * The organization of the path: 403 when the key belongs to another one, 404 when an admin key
 * names one that does not exist.
 */
async function pathOrganization(ctx: V1Context, organizationId: number): Promise<number> {
  requireAccess(ctx.principal, organizationId, 'organizationid');
  if (!(await ctx.store.organizationExists(organizationId))) throw notFound(`Organization ${organizationId} does not exist.`);
  return organizationId;
}

/**
 * Where operation 1 creates: the key's organization; an admin key must name it with
 * `?organization=` (400 without it, or when it names no organization).
 */
async function creationOrganization(ctx: V1Context, principal: Principal): Promise<number> {
  const named = queryPositiveInteger(ctx.query, 'organization');
  if (principal.organizationId !== null) {
    if (named !== undefined) requireAccess(principal, named, 'organization');
    return principal.organizationId;
  }
  if (named === undefined) {
    throw validationFailed('An admin key must name the organization with the query parameter organization.', 'organization');
  }
  if (!(await ctx.store.organizationExists(named))) throw validationFailed(`Organization ${named} does not exist.`, 'organization');
  return named;
}

function frameworkNotFound(id: number) {
  return notFound(`Security framework ${id} does not exist.`);
}

export const frameworkRoutes: readonly V1Route[] = [
  {
    method: 'POST',
    path: '/api/v1/V-Ciso/security-frameworks',
    async handler(ctx) {
      const body = await ctx.readJson();
      const organizationId = await creationOrganization(ctx, ctx.principal);
      const input = parseFrameworkBody(body);
      return created({ security_framework: await ctx.store.createFramework(organizationId, input) });
    },
  },
  {
    method: 'GET',
    path: '/api/v1/organizations/:organizationid/security-frameworks',
    async handler(ctx) {
      const { organizationid } = pathIds(ctx, ['organizationid']);
      const data = await ctx.store.listFrameworks(await pathOrganization(ctx, organizationid));
      return ok({ total: data.length, data });
    },
  },
  {
    method: 'PUT',
    path: '/api/v1/organizations/:organizationid/security-frameworks/:frameworkid',
    async handler(ctx) {
      // Cheap things first: a framework that does not exist is 404 before its body is read.
      const { organizationid, frameworkid } = pathIds(ctx, ['organizationid', 'frameworkid']);
      const organizationId = await pathOrganization(ctx, organizationid);
      if (!(await ctx.store.frameworkExists(organizationId, frameworkid))) throw frameworkNotFound(frameworkid);
      const input = parseFrameworkBody(await ctx.readJson());
      const framework = await ctx.store.replaceFramework(organizationId, frameworkid, input);
      if (!framework) throw frameworkNotFound(frameworkid);
      return ok({ security_framework: framework });
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/organizations/:organizationid/security-frameworks/:frameworkid',
    async handler(ctx) {
      const { organizationid, frameworkid } = pathIds(ctx, ['organizationid', 'frameworkid']);
      const framework = await ctx.store.softDeleteFramework(await pathOrganization(ctx, organizationid), frameworkid);
      if (!framework) throw frameworkNotFound(frameworkid);
      return ok({ security_framework: framework });
    },
  },
];
