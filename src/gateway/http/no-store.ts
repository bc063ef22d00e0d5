// Every GraphQL answer carries `Cache-Control: no-store`: answers depend on the caller's key, so no
// shared cache may keep one. Apollo's cache-control plugin gave this header, but it also wraps
// every field resolver to compute cache hints that this schema never declares (no @cacheControl),
// a per-field cost that the profile showed; server.ts turns that plugin off and installs this one.
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';

export function noStorePlugin<TContext extends BaseContext>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (!response.http.headers.has('cache-control')) response.http.headers.set('cache-control', 'no-store');
        },
      };
    },
  };
}
