// The switch between shared and local state: with REDIS_URL, the one connection to Redis through
// which replicas share their state; without it, none, and each feature keeps its state in this
// process. Each feature makes its own store from what this gives, where the gateway starts
// (server.ts): its Redis adapter, which falls back to its local state while Redis is unreachable,
// or its local store alone. Nothing here knows the features.
import type { Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { SharedState } from './shared-state.ts';

/** Each replica alone: its own memory. */
const LOCAL: SharedState = {
  redisState: undefined,
  redis: undefined,
  close: async () => {},
};

export async function sharedState(redisUrl: string | undefined, logger: Logger, registry: Registry): Promise<SharedState> {
  if (redisUrl === undefined) return LOCAL;
  // Loaded only here: a gateway without REDIS_URL never loads the Redis client.
  const { redisSharedState } = await import('./redis-state.ts');
  return redisSharedState(redisUrl, logger, registry);
}
