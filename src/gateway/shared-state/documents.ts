// Documents shared by every replica: automatic persisted queries (a client registers a hash on one
// replica and sends only the hash to the next), and trusted documents (during a rolling deploy, a
// new front end's documents are known to the replicas still running the old manifest). Each replica
// keeps its own bounded copy too, which serves while Redis is unreachable.
import type { KeyValueCache, KeyValueCacheSetOptions } from '@apollo/utils.keyvaluecache';
import type { TrustedDocumentStore } from '../trusted-documents/manifest.ts';
import type { SharedRedis } from './redis.ts';

/** How long a persisted query is kept when Apollo gives no TTL. */
const DEFAULT_APQ_TTL_S = 24 * 60 * 60;
/** Trusted documents outlive any deploy: refreshed at every start of a replica that has them. */
const TRUSTED_TTL_S = 30 * 24 * 60 * 60;

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

/** Trusted documents: this replica's manifest first, then what any replica's manifest shared. */
export class SharedTrustedDocuments implements TrustedDocumentStore {
  constructor(
    private readonly redis: SharedRedis,
    private readonly local: TrustedDocumentStore & { entries(): Iterable<[string, string]> },
  ) {}

  /** Shares this replica's manifest (once connected; again after each reconnection). */
  async publish(): Promise<void> {
    await this.redis.run(
      async (client) => {
        const pipeline = client.pipeline();
        for (const [hash, document] of this.local.entries()) pipeline.set(`gw:trusted:${hash}`, document, 'EX', TRUSTED_TTL_S);
        await pipeline.exec();
      },
      () => undefined,
    );
  }

  async get(hash: string): Promise<string | undefined> {
    const own = await this.local.get(hash);
    if (own !== undefined) return own;
    const shared = await this.redis.run(
      (client) => client.get(`gw:trusted:${hash}`),
      () => null,
    );
    return shared ?? undefined;
  }
}
