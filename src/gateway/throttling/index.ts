// Throttling by cost, as the gateway's configuration asks for it (RATE_LIMIT_CALLS 0: off): each
// key's bucket in this process's memory, or, with replicas, in Redis (redis-buckets.ts), which
// falls back to this process's own buckets while Redis is unreachable.
import type { BaseContext } from '@apollo/server';
import type { RequestObservation } from '../observability/observation.ts';
import type { SharedRedis } from '../shared-state/redis.ts';
import { MemoryBuckets } from './buckets.ts';
import { throttle, type Throttle } from './plugin.ts';
import { RedisBuckets } from './redis-buckets.ts';

export function throttleFor<TContext extends BaseContext & { apiKey: string | null; caller?: { bucket: string }; observation?: RequestObservation }>(
  rateLimit: { calls: number; restorePerSecond: number },
  /** REDIS_URL's connection: buckets shared by every replica. */
  redis?: SharedRedis,
): Throttle<TContext> | undefined {
  if (rateLimit.calls <= 0) return undefined;
  const settings = { limit: rateLimit.calls, restorePerSecond: rateLimit.restorePerSecond };
  return throttle<TContext>(settings, redis ? new RedisBuckets(redis, settings) : new MemoryBuckets(settings));
}
