// Throttling by cost, as the gateway's configuration asks for it (RATE_LIMIT_CALLS 0: off).
import type { BaseContext } from '@apollo/server';
import type { RequestObservation } from '../../observability/observation.ts';
import { MemoryBuckets, type BucketSettings, type BucketStore } from './buckets.ts';
import { throttle, type Throttle } from './plugin.ts';

export function throttleFor<TContext extends BaseContext & { apiKey: string | null; observation?: RequestObservation }>(
  rateLimit: { calls: number; restorePerSecond: number },
  /** With replicas: buckets shared through Redis. */
  shared?: (settings: BucketSettings) => BucketStore | undefined,
): Throttle<TContext> | undefined {
  if (rateLimit.calls <= 0) return undefined;
  const settings = { limit: rateLimit.calls, restorePerSecond: rateLimit.restorePerSecond };
  return throttle<TContext>(settings, shared?.(settings) ?? new MemoryBuckets(settings));
}
