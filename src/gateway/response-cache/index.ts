// The response cache as the configuration asks for it (RESPONSE_CACHE_TTL_S, STALE_IF_ERROR_S,
// RESPONSE_CACHE_MAX_BYTES): off unless one of the first two is set, and `extensions.stale` on
// the responses it served stale.
import type { ApolloServerPlugin } from '@apollo/server';
import type { Registry } from 'prom-client';
import { CacheMetrics } from '../observability/cache-metrics.ts';
import type { StaleReads } from './stale.ts';
import { ResponseCache, type CacheEvent, type ResponseCacheSettings, type ResponseCacheStore } from './store.ts';

export { ResponseCache, type ResponseCacheSettings } from './store.ts';

/**
 * This gateway's cache, or undefined when both the TTL and the stale window are 0. `share`, with
 * replicas, puts a cache shared through Redis in front of this process's own.
 */
export function responseCacheFor(
  settings: ResponseCacheSettings,
  registry: Registry,
  share: (local: ResponseCache, settings: ResponseCacheSettings, onEvent: (event: CacheEvent) => void) => ResponseCacheStore = (local) => local,
): ResponseCacheStore | undefined {
  if (settings.ttlMs === 0 && settings.staleIfErrorMs === 0) return undefined;
  // The gauge reads the cache's size when scraped, long after both exist.
  const metrics: CacheMetrics = new CacheMetrics([registry], (): number => local.bytes);
  const local: ResponseCache = new ResponseCache(settings, metrics.count);
  return share(local, settings, metrics.count);
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
