// Apollo's automatic persisted queries shared by every replica: a client registers a hash on one
// replica and sends only the hash to the next. Each replica keeps its own bounded copy too
// (apollo-caches.ts), which serves while Redis is unreachable.
import type { KeyValueCache, KeyValueCacheSetOptions } from '@apollo/utils.keyvaluecache';
import type { SharedRedis } from '../shared-state/redis.ts';

/** How long a persisted query is kept when Apollo gives no TTL. */
const DEFAULT_APQ_TTL_S = 24 * 60 * 60;

/** Apollo's persisted-query cache over Redis, with this replica's bounded cache beside it. */
export class SharedPersistedQueries implements KeyValueCache<string> {
  constructor(
    private readonly redis: SharedRedis,
    private readonly local: KeyValueCache<string>,
  ) {}

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
      () => null,
    );
    if (shared === null) return undefined;
    await this.local.set(key, shared);
    return shared;
  }

  async set(key: string, value: string, options?: KeyValueCacheSetOptions): Promise<void> {
    await this.local.set(key, value, options);
    const ttl = options?.ttl ?? DEFAULT_APQ_TTL_S;
    await this.redis.run(
      (client) => client.set(`gw:apq:${key}`, value, 'EX', Math.max(1, Math.ceil(ttl))),
      () => 'local',
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
