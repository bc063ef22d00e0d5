// The gateway as one subgraph of a company's supergraph (SUBGRAPH=1): its schema with the
// federation link, `_service` and `_entities`, and the guard of those fields (SUBGRAPH_SECRET).
// Off, the gateway serves the SDL's own schema and nothing here is put into it.
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { buildSchema, type FieldWrapper } from '../domains/index.ts';
import { buildSubgraphExecutable } from './schema.ts';
import { subgraphSecretPlugin } from './secret.ts';
import type { SubgraphSettings } from './settings.ts';

export type { SubgraphSettings };

export interface ServedSchema<TContext extends BaseContext> {
  schema: GraphQLSchema;
  /** The guard of `_service` and `_entities`, when SUBGRAPH_SECRET is set. */
  plugins: ApolloServerPlugin<TContext>[];
}

/** The schema the gateway serves: the SDL's (domains/index.ts), or the subgraph's with SUBGRAPH=1. */
export function schemaFor<TContext extends BaseContext>(
  settings: { subgraph: SubgraphSettings; production: boolean },
  logger: Logger,
  wrap?: FieldWrapper,
): ServedSchema<TContext> {
  const { enabled, secret } = settings.subgraph;
  if (!enabled) return { schema: buildSchema(wrap), plugins: [] };
  if (secret === undefined && settings.production) {
    logger.warn('SUBGRAPH=1 without SUBGRAPH_SECRET: any client can read the whole SDL through _service and look records up through _entities');
  }
  return { schema: buildSubgraphExecutable(wrap), plugins: secret === undefined ? [] : [subgraphSecretPlugin<TContext>(secret)] };
}
