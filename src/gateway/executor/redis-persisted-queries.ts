// Apollo's automatic persisted queries shared by every replica: a client registers a hash on one
// replica and sends only the hash to the next. Each replica keeps its own bounded copy too
// (apollo-caches.ts), which serves while Redis is unreachable; the workers of GATEWAY_WORKERS then
// also share what they register through their primary.
import { InMemoryLRUCache, type KeyValueCache, type KeyValueCacheSetOptions } from '@apollo/utils.keyvaluecache';
import { localStore } from '../shared-state/local-state.ts';
import type { SharedRedis } from '../shared-state/redis.ts';

/** How long a persisted query is kept when Apollo gives no TTL. */
const DEFAULT_APQ_TTL_S = 24 * 60 * 60;

/** The bound of a process's own persisted queries (and of a workers' primary's, while Redis is away). */
export const PERSISTED_QUERY_CACHE_BYTES = 4 * 1024 * 1024;

/** Persisted queries while Redis is unreachable, as a lone process or a workers' primary keeps them. */
export const localPersistedQueries = () =>
  localStore<KeyValueCache<string>>('persisted-queries', ['get', 'set', 'delete'], () => new InMemoryLRUCache<string>({ maxSize: PERSISTED_QUERY_CACHE_BYTES }));

/** Apollo's persisted-query cache over Redis, with this replica's bounded cache beside it. */
export class SharedPersistedQueries implements KeyValueCache<string> {
  /** While Redis is unreachable: `local` itself, or, in a worker, its primary's (one for all the workers). */
  readonly #outage: KeyValueCache<string>;

  constructor(
    private readonly redis: SharedRedis,
    private readonly local: KeyValueCache<string>,
  ) {
    this.#outage = redis.local.of(localPersistedQueries(), local);
  }

  /**
   * This replica's copy first: a query's hash names its text for ever, so a copy never goes stale,
   * and a client repeating a registered query costs no Redis round trip. One registered on another
   * replica is fetched once, then kept here too.
   */
  async get(key: string): Promise<string | undefined> {
    const own = await this.local.get(key);
    if (own !== undefined) return own;
    const shared = await this.redis.run(
      (client) => client.get(`gw:apq:${key}`),
      async () => (this.#outage === this.local ? null : ((await this.#outage.get(key)) ?? null)),
    );
    if (shared === null) return undefined;
    await this.local.set(key, shared);
    return shared;
  }

  async set(key: string, value: string, options?: KeyValueCacheSetOptions): Promise<void> {
    await this.local.set(key, value, options);
    const ttl = options?.ttl ?? DEFAULT_APQ_TTL_S;
    await this.redis.run(
      async (client) => {
        await client.set(`gw:apq:${key}`, value, 'EX', Math.max(1, Math.ceil(ttl)));
      },
      async () => {
        if (this.#outage !== this.local) await this.#outage.set(key, value, options);
      },
    );
  }

  async delete(key: string): Promise<boolean | void> {
    await this.redis.run(
      (client) => client.del(`gw:apq:${key}`),
      () => 0,
    );
    return this.local.delete(key);
  }
}
