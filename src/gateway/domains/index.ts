// The executable schema, assembled from the domains. The resolver map
// is checked by the compiler (checked-resolvers.ts): a field that needs a resolver and lacks one
// fails `npm run typecheck`.
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { scalarResolvers, typeDefs } from '../schema.ts';
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

export function buildSchema(): GraphQLSchema {
  return makeExecutableSchema({ typeDefs, resolvers });
}
