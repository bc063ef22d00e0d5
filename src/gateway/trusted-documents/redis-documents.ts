// Trusted documents shared by every replica: during a rolling deploy, a new front end's documents
// are known to the replicas still running the old manifest. Each replica's own manifest serves
// first, and alone while Redis is unreachable.
import type { SharedRedis } from '../shared-state/redis.ts';
import type { TrustedDocumentStore } from './manifest.ts';

/** Trusted documents outlive any deploy: refreshed at every start of a replica that has them. */
const TRUSTED_TTL_S = 30 * 24 * 60 * 60;

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
