// State shared by replicas, behind one interface with a local fallback: with REDIS_URL, throttle
// buckets, the response cache and its invalidations, persisted queries, trusted documents and
// export links go through Redis; without it (or while it is unreachable) each replica keeps its
// own. The stores are this gateway instance's, made here once at start.
import type { Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { SharedState } from './shared-state.ts';

/** Each replica alone: its own memory. */
const LOCAL: SharedState = {
  redisState: undefined,
  redis: undefined,
  responseCache: (local) => local,
  close: async () => {},
};

export async function sharedState(redisUrl: string | undefined, logger: Logger, registry: Registry): Promise<SharedState> {
  if (redisUrl === undefined) return LOCAL;
  // Loaded only here: a gateway without REDIS_URL never loads the Redis client.
  const { redisSharedState } = await import('./redis-state.ts');
  return redisSharedState(redisUrl, logger, registry);
}
