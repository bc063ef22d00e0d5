// Security frameworks: the v1 service lists them per organization (no single read, no paging),
// so every lookup goes through the per-organization loader and the connection pages in memory.
import type { Resolvers, SecurityFrameworkInput } from '../../generated/resolvers.ts';
import { connectionFromLoadedList, DEFAULT_PAGE_SIZES } from '../../connections/connection.ts';
import { isNotFound } from '../../errors.ts';
import { isPositiveIntegerId, requirePositiveId } from '../common/arguments.ts';
import { createSecurityFramework, deleteSecurityFramework, updateSecurityFramework, type SecurityFrameworkBody } from './operations.ts';
import { controlsOf } from './controls.ts';
import type { WireSecurityFramework } from './wire.ts';

/** GraphQL input to the v1 body. `evidences` is sent empty: evidence belongs to the service. */
function toWireBody(input: SecurityFrameworkInput): SecurityFrameworkBody {
  return {
    title: input.title,
    security_frameworks: input.controls.map((control) => ({
      id: control.controlId,
      type: control.type,
      title: control.title,
      weight: control.weight,
      details: control.details ?? {},
      evidences: [],
      frequency: control.frequency,
      description: control.description ?? '',
      evidence_type: control.evidenceType,
    })),
  };
}

export async function findFramework(
  load: (organizationId: string) => Promise<WireSecurityFramework[]>,
  organizationId: string,
  id: string,
): Promise<WireSecurityFramework | null> {
  if (!isPositiveIntegerId(id)) return null;
  try {
    return (await load(organizationId)).find((framework) => String(framework.id) === id) ?? null;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

export const securityFrameworkResolvers = {
  Query: {
    async securityFrameworks(_parent, args, { loaders }) {
      const organizationId = requirePositiveId(args.organizationId, 'organizationId');
      return connectionFromLoadedList(args, { binding: `frameworks:${organizationId}`, defaultSize: DEFAULT_PAGE_SIZES.SecurityFrameworkConnection }, () =>
        loaders.frameworksByOrganization.load(organizationId),
      );
    },
    async securityFramework(_parent, args, { loaders }) {
      const organizationId = requirePositiveId(args.organizationId, 'organizationId');
      const id = requirePositiveId(args.id, 'id');
      return findFramework((org) => loaders.frameworksByOrganization.load(org), organizationId, id);
    },
  },
  Mutation: {
    async createSecurityFramework(_parent, args, { upstream, loaders }) {
      const organizationId = args.organizationId ?? undefined;
      const id = await createSecurityFramework(
        upstream,
        toWireBody(args.input),
        organizationId === undefined ? undefined : requirePositiveId(organizationId, 'organizationId'),
      );
      return {
        id,
        // Read back only when asked, and only when the organization is known: v1's create
        // answers with the bare id and there is no single-framework read.
        readBack: async () => {
          if (organizationId === undefined) return null;
          loaders.frameworksByOrganization.clear(organizationId);
          return findFramework((org) => loaders.frameworksByOrganization.load(org), organizationId, String(id));
        },
      };
    },
    async updateSecurityFramework(_parent, args, { upstream, loaders }) {
      const organizationId = requirePositiveId(args.organizationId, 'organizationId');
      const id = requirePositiveId(args.id, 'id');
      loaders.frameworksByOrganization.clear(organizationId);
      const framework = await updateSecurityFramework(upstream, organizationId, id, toWireBody(args.input));
      loaders.frameworkOwners.set(framework, organizationId);
      return { securityFramework: framework };
    },
    async deleteSecurityFramework(_parent, args, { upstream, loaders }) {
      const organizationId = requirePositiveId(args.organizationId, 'organizationId');
      const id = requirePositiveId(args.id, 'id');
      loaders.frameworksByOrganization.clear(organizationId);
      const framework = await deleteSecurityFramework(upstream, organizationId, id);
      loaders.frameworkOwners.set(framework, organizationId);
      return { securityFramework: framework };
    },
  },
  CreateSecurityFrameworkPayload: {
    id: (payload) => String(payload.id),
    securityFramework: (payload) => payload.readBack(),
  },
  SecurityFramework: {
    id: (framework) => String(framework.id),
    organizationId(framework, _args, { loaders }) {
      const organizationId = loaders.frameworkOwners.get(framework);
      if (organizationId === undefined) throw new Error('a framework was resolved without the organization it was read under');
      return organizationId;
    },
    controls: (framework, _args, { controlIds }) => controlsOf(framework, controlIds),
  },
} satisfies Resolvers;
