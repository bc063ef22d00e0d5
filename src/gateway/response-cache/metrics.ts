// The response cache as the operator sees it: lookups by result, answers kept, invalidations,
// stale answers served while the upstream failed, and the bytes held.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { CacheEvent, ResponseCacheStore } from './store.ts';

export class CacheMetrics {
  readonly #events: Counter<'event'>;

  constructor(registers: Registry[], bytes: () => number) {
    this.#events = new Counter({
      name: 'response_cache_events_total',
      help: 'Response cache events: hit and miss (fresh lookups), stale (an answer served while the upstream failed), store, invalidation',
      labelNames: ['event'],
      registers,
    });
    new Gauge({
      name: 'response_cache_bytes',
      help: 'Bytes the response cache counts its answers at (RESPONSE_CACHE_MAX_BYTES bounds it)',
      registers,
      collect() {
        this.set(bytes());
      },
    });
  }

  readonly count = (event: CacheEvent): void => {
    this.#events.inc({ event });
  };
}

/**
 * A store whose lookups this process counts: a workers' primary's cache, which counts nothing in
 * this worker's registry, answers them while Redis is unreachable.
 */
export function countingLookups(store: ResponseCacheStore, count: (event: CacheEvent) => void): ResponseCacheStore {
  return {
    async lookup(partition, path, tags) {
      const found = await store.lookup(partition, path, tags);
      count('fresh' in found ? 'hit' : 'miss');
      return found;
    },
    async stale(partition, path, tags) {
      const answer = await store.stale(partition, path, tags);
      if (answer !== undefined) count('stale');
      return answer;
    },
    keep: (partition, path, text, tags, stamp) => store.keep(partition, path, text, tags, stamp),
    async invalidate(tags) {
      await store.invalidate(tags);
      count('invalidation');
    },
  };
}
