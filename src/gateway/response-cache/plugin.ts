// `extensions.stale: [{ path, age }]` on a response some of whose fields were served stale.
import type { ApolloServerPlugin } from '@apollo/server';
import type { StaleReads } from './stale.ts';

export function staleExtensionPlugin<TContext extends { stale?: StaleReads }>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue }) {
          const fields = contextValue.stale?.fields;
          if (!fields || fields.length === 0) return;
          const result = response.body.kind === 'single' ? response.body.singleResult : response.body.initialResult;
          result.extensions = { ...result.extensions, stale: fields };
        },
      };
    },
  };
}
