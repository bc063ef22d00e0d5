// The executable schema of a subgraph: Apollo's subgraph library builds it from the SDL with the
// federation directives (sdl.ts), adds `_service` and `_entities`, and gives the entities their
// reference resolvers; the domains' resolvers are then put on it as on the plain schema.
import { buildSubgraphSchema } from '@apollo/subgraph';
import { addResolversToSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { domainResolvers, type FieldWrapper } from '../domains/index.ts';
import { typeDefs } from '../schema.ts';
import { entityResolvers, guardEntities } from './entities.ts';
import { subgraphTypeDefs } from './sdl.ts';

/**
 * Built once for each gateway that serves as a subgraph, at start: the library puts resolvers on
 * a schema of its own, so the plain schema (domains/index.ts) is never touched.
 */
export function buildSubgraphExecutable(wrap?: FieldWrapper): GraphQLSchema {
  // The library takes a resolver map of GraphQL-tools' shape, reference resolvers included.
  const schema = buildSubgraphSchema({ typeDefs: subgraphTypeDefs(typeDefs), resolvers: entityResolvers as never });
  guardEntities(schema);
  return addResolversToSchema({ schema, resolvers: domainResolvers(wrap), updateResolversInPlace: true });
}
