// The organization a web protection record or a device belongs to, as both domains' wire records
// carry it.
import type { Resolvers } from '../../generated/resolvers.ts';

export const organizationResolvers = {
  Organization: {
    id: (organization) => String(organization.id),
  },
} satisfies Resolvers;
