// The gateway as one subgraph of a company's supergraph (SUBGRAPH=1): its schema with the
// federation link, `_service` and `_entities`, and the guard of those fields (SUBGRAPH_SECRET).
// Off, the gateway serves the SDL's own schema and nothing here is loaded into it.
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import type { FieldWrapper } from '../domains/index.ts';
import { buildSubgraphExecutable } from './schema.ts';
import { subgraphSecretPlugin } from './secret.ts';
import type { SubgraphSettings } from './settings.ts';

export type { SubgraphSettings };

export interface Subgraph<TContext extends BaseContext> {
  schema: GraphQLSchema;
  plugins: ApolloServerPlugin<TContext>[];
}

export function subgraphFor<TContext extends BaseContext>(settings: SubgraphSettings, wrap?: FieldWrapper): Subgraph<TContext> | undefined {
  if (!settings.enabled) return undefined;
  return {
    schema: buildSubgraphExecutable(wrap),
    plugins: settings.secret === undefined ? [] : [subgraphSecretPlugin<TContext>(settings.secret)],
  };
}
