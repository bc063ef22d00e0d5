// The response cache as the configuration asks for it (RESPONSE_CACHE_TTL_S, STALE_IF_ERROR_S,
// RESPONSE_CACHE_MAX_BYTES): off unless one of the first two is set, and `extensions.stale` on
// the responses it served stale.
import type { ApolloServerPlugin } from '@apollo/server';
import type { Registry } from 'prom-client';
import { CacheMetrics } from '../observability/cache-metrics.ts';
import type { StaleReads } from './stale.ts';
import { ResponseCache, type ResponseCacheSettings } from './store.ts';

export { ResponseCache, type ResponseCacheSettings } from './store.ts';

/** This gateway's cache, or undefined when both the TTL and the stale window are 0. */
export function responseCacheFor(settings: ResponseCacheSettings, registry: Registry): ResponseCache | undefined {
  if (settings.ttlMs === 0 && settings.staleIfErrorMs === 0) return undefined;
  let cache: ResponseCache | undefined = undefined;
  const metrics = new CacheMetrics([registry], () => cache?.bytes ?? 0);
  cache = new ResponseCache(settings, metrics.count);
  return cache;
}

/** Writes `extensions.stale: [{ path, age }]` on a response some of whose fields were served stale. */
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
