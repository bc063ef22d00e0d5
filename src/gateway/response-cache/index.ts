// The response cache as the configuration asks for it (RESPONSE_CACHE_TTL_S, STALE_IF_ERROR_S,
// RESPONSE_CACHE_MAX_BYTES): off unless one of the first two is set. Everything of it is here: the
// store (this process's, or shared by replicas through Redis), the domains' rules it applies, its
// metrics, what it gives each request's upstream client, and, when it may serve stale answers,
// what finds the fields they reached and `extensions.stale`.
import type { ApolloServerPlugin } from '@apollo/server';
import type { Registry } from 'prom-client';
import { keyHash } from '../key-hash.ts';
import type { SharedRedis } from '../shared-state/redis.ts';
import type { CallerCache } from '../upstream/call-types.ts';
import type { Route } from '../upstream/routes.ts';
import { CacheOfCaller } from './caller.ts';
import { CacheMetrics, countingLookups } from './metrics.ts';
import { staleExtensionPlugin } from './plugin.ts';
import { localResponseCache, SharedResponseCache } from './redis-store.ts';
import type { CacheRule, DeclaredRule } from './rules.ts';
import { noteStaleFields, type StaleAwareContext } from './stale-fields.ts';
import { StaleReads } from './stale.ts';
import { ResponseCache, type ResponseCacheSettings, type ResponseCacheStore } from './store.ts';

export type { ResponseCacheSettings } from './store.ts';
export type { StaleReads } from './stale.ts';

export interface ResponseCacheOptions {
  registry: Registry;
  /** Every route's rule, as the domains declare them. */
  rules: readonly DeclaredRule[];
  /** With REDIS_URL: the connection replicas share answers and invalidations through. */
  redis?: SharedRedis;
}

/** What one request gets of the cache: its upstream client's cache, and its stale record. */
export interface RequestCache {
  caller: CallerCache;
  stale?: StaleReads;
}

export interface GatewayResponseCache<TContext extends StaleAwareContext> {
  /**
   * The cache for one request's key; undefined without a key (such a request makes no call to keep).
   * `partition` (a signed-in user's organization and scope set, hashed) replaces the key's hash.
   */
  forRequest(apiKey: string | null, partition?: string): RequestCache | undefined;
  /** The Apollo plugins of the cache (`extensions.stale`). */
  plugins: ApolloServerPlugin<TContext>[];
  /**
   * Put around every resolver when the schema is built, when stale answers may be served (it
   * finds the fields they reached); undefined when they never are, and the schema has no wrapper.
   */
  fieldWrapper: typeof noteStaleFields | undefined;
}

/** This gateway's cache, or undefined when both the TTL and the stale window are 0. */
export function responseCacheFor<TContext extends StaleAwareContext>(
  settings: ResponseCacheSettings,
  options: ResponseCacheOptions,
): GatewayResponseCache<TContext> | undefined {
  if (settings.ttlMs === 0 && settings.staleIfErrorMs === 0) return undefined;
  // The gauge reads the cache's size when scraped, long after both exist.
  const metrics: CacheMetrics = new CacheMetrics([options.registry], (): number => local.bytes);
  const local: ResponseCache = new ResponseCache(settings, metrics.count);
  let store: ResponseCacheStore = local;
  if (options.redis !== undefined) {
    // While Redis is away: this process's cache, or, in a worker, the one its primary keeps for all
    // (its lookups counted here; should the primary not answer, this process's counts them too).
    const outage = options.redis.local.of(localResponseCache(settings), local);
    const shared = new SharedResponseCache(options.redis, outage === local ? local : countingLookups(outage, metrics.count), settings, metrics.count);
    // The invalidations made while Redis was away reach it before it serves again.
    options.redis.whenBack(() => shared.replay());
    store = shared;
  }
  const rules = new Map<Route<unknown>, CacheRule>(options.rules.map(({ route, rule }) => [route, rule]));
  const servesStale = settings.staleIfErrorMs > 0;
  return {
    forRequest(apiKey, partition) {
      if (!apiKey) return undefined;
      const stale = servesStale ? new StaleReads() : undefined;
      return { caller: new CacheOfCaller(store, rules, partition ?? keyHash(apiKey), stale), ...(stale ? { stale } : {}) };
    },
    plugins: servesStale ? [staleExtensionPlugin<TContext>()] : [],
    fieldWrapper: servesStale ? noteStaleFields : undefined,
  };
}
