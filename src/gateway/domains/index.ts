// The executable schema, assembled from the domains. The resolver map
// is checked by the compiler (checked-resolvers.ts): a field that needs a resolver and lacks one
// fails `npm run typecheck`.
import { addResolversToSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { declared, scalarResolvers } from '../schema.ts';
import type { CheckedResolvers } from './checked-resolvers.ts';
import { organizationResolvers } from './common/organization.ts';
import { protectionDeviceResolvers } from './protection-devices/resolvers.ts';
import { securityFrameworkResolvers } from './security-frameworks/resolvers.ts';
import { webProtectionResolvers } from './web-protection/resolvers.ts';

export const resolvers = {
  ...scalarResolvers,
  ...organizationResolvers,
  ...securityFrameworkResolvers,
  ...webProtectionResolvers,
  ...protectionDeviceResolvers,
  Query: { ...securityFrameworkResolvers.Query, ...protectionDeviceResolvers.Query },
  Mutation: { ...securityFrameworkResolvers.Mutation, ...webProtectionResolvers.Mutation, ...protectionDeviceResolvers.Mutation },
} satisfies CheckedResolvers;

let executable: GraphQLSchema | undefined;

/**
 * The SDL's schema (built and checked once, in schema.ts) given its resolvers, once per process:
 * in place, since a copy of the whole schema (addResolversToSchema's default) would cost every
 * start time for nothing. Nothing changes it afterwards, so every gateway in the process shares it.
 */
export function buildSchema(): GraphQLSchema {
  executable ??= addResolversToSchema({ schema: declared, resolvers, updateResolversInPlace: true });
  return executable;
}
