// The executable schema: the SDL of schema/*.graphql with the resolvers of each domain.
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { scalarResolvers, typeDefs } from '../schema.ts';
import { protectionDeviceResolvers } from './protection-devices.ts';
import { securityFrameworkResolvers } from './security-frameworks.ts';
import { webProtectionResolvers } from './web-protection.ts';

export function buildSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs,
    resolvers: [scalarResolvers, securityFrameworkResolvers, webProtectionResolvers, protectionDeviceResolvers],
  });
}
