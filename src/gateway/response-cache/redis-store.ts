// The response cache shared by every replica: an answer kept by one is served by all, and a
// mutation on one invalidates for all before it answers. In Redis, per answer, a hash of its text,
// when it was kept (Redis's clock) and the stamps of its tags; per tag, a counter that each
// invalidation increments. An answer is valid while its tags' counters are what they were when its
// call was sent: each lookup and each keep is one script, so no invalidation slips between the
// check and the read or the write.
//
// While Redis is unreachable each replica caches alone (ResponseCache; the workers of
// GATEWAY_WORKERS share their primary's, so that a mutation on one invalidates for all before it
// answers), and the tags it invalidates meanwhile are replayed to Redis when it returns, so that no replica then serves
// what a mutation made during the outage changed.
import { localStore } from '../shared-state/local-state.ts';
import type { SharedRedis } from '../shared-state/redis.ts';
import { ResponseCache, type CacheEvent, type CachedAnswer, type ResponseCacheSettings, type ResponseCacheStore } from './store.ts';

const ENTRY = 'gw:rc:e:';
const TAG = 'gw:rc:t:';
/** Tags remembered for replay while Redis is away; past it, every answer in Redis is dropped on return. */
const MAX_PENDING_TAGS = 10_000;

// KEYS[1] the answer, KEYS[2..] its tags. ARGV[1] the longest age served (ms). Returns
// { text or false, age ms, the tags' current stamps joined }.
const LOOKUP = `
local stamps = {}
for i = 2, #KEYS do stamps[#stamps + 1] = redis.call('GET', KEYS[i]) or '0' end
local current = table.concat(stamps, ',')
local kept = redis.call('HMGET', KEYS[1], 'text', 'at', 'stamps')
if not kept[1] or kept[3] ~= current then return { false, 0, current } end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local age = math.max(0, now - tonumber(kept[2]))
if age > tonumber(ARGV[1]) then return { false, age, current } end
return { kept[1], age, current }
`;

// KEYS as LOOKUP's. ARGV: text, the stamps the call was sent under, how long to keep (ms).
const KEEP = `
local stamps = {}
for i = 2, #KEYS do stamps[#stamps + 1] = redis.call('GET', KEYS[i]) or '0' end
if table.concat(stamps, ',') ~= ARGV[2] then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'text', ARGV[1], 'at', now, 'stamps', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** The cache while Redis is unreachable, as a lone process or a workers' primary keeps it. */
export const localResponseCache = (settings: ResponseCacheSettings) =>
  localStore<ResponseCacheStore>('response-cache', ['lookup', 'stale', 'keep', 'invalidate'], () => new ResponseCache(settings));

type Script = (...args: (string | number)[]) => Promise<unknown>;

/** A script's keys, their count first: the answer's, then its tags' counters. */
function keys(partition: string, path: string, tags: readonly string[]): (string | number)[] {
  return [1 + tags.length, ENTRY + partition + ' ' + path, ...tags.map((tag) => TAG + tag)];
}

export class SharedResponseCache implements ResponseCacheStore {
  readonly #pending = new Set<string>();
  #overflowed = false;
  readonly #lookup: Script;
  readonly #keep: Script;
  /** How long an answer is kept: as long as either use of it lasts. */
  readonly #retentionMs: number;

  constructor(
    private readonly redis: SharedRedis,
    private readonly local: ResponseCacheStore,
    private readonly settings: ResponseCacheSettings,
    private readonly onEvent: (event: CacheEvent) => void,
  ) {
    this.#retentionMs = Math.max(settings.ttlMs, settings.staleIfErrorMs);
    redis.client.defineCommand('gatewayCacheLookup', { lua: LOOKUP });
    redis.client.defineCommand('gatewayCacheKeep', { lua: KEEP });
    const client = redis.client as unknown as { gatewayCacheLookup: Script; gatewayCacheKeep: Script };
    this.#lookup = (...args) => client.gatewayCacheLookup(...args);
    this.#keep = (...args) => client.gatewayCacheKeep(...args);
  }

  async lookup(partition: string, path: string, tags: readonly string[]): Promise<{ fresh: CachedAnswer } | { stamp: unknown }> {
    return this.redis.run<{ fresh: CachedAnswer } | { stamp: unknown }>(
      async () => {
        const [text, ageMs, stamps] = (await this.#lookup(...keys(partition, path, tags), this.settings.ttlMs - 1)) as [string | null, number, string];
        if (typeof text === 'string' && ageMs < this.settings.ttlMs) {
          this.onEvent('hit');
          return { fresh: { text, ageMs } };
        }
        this.onEvent('miss');
        return { stamp: { shared: stamps } };
      },
      () => this.local.lookup(partition, path, tags),
    );
  }

  async stale(partition: string, path: string, tags: readonly string[]): Promise<CachedAnswer | undefined> {
    // While Redis answers, only what it holds: a local answer may have been invalidated elsewhere.
    return this.redis.run(
      async () => {
        const [text, ageMs] = (await this.#lookup(...keys(partition, path, tags), this.settings.staleIfErrorMs)) as [string | null, number, string];
        if (typeof text !== 'string') return undefined;
        this.onEvent('stale');
        return { text, ageMs };
      },
      () => this.local.stale(partition, path, tags),
    );
  }

  async keep(partition: string, path: string, text: string, tags: readonly string[], stamp: unknown): Promise<void> {
    const shared = (stamp as { shared?: string } | undefined)?.shared;
    // A call sent while Redis was away was stamped by the local cache: kept there.
    if (shared === undefined) return this.local.keep(partition, path, text, tags, stamp);
    if ((text.length + path.length) * 2 > this.settings.maxBytes) return;
    await this.redis.run(
      async () => {
        if ((await this.#keep(...keys(partition, path, tags), text, shared, this.#retentionMs)) === 1) this.onEvent('store');
      },
      () => undefined,
    );
  }

  async invalidate(tags: readonly string[]): Promise<void> {
    if (tags.length === 0) return;
    // The local cache too, even with Redis up: what it kept in an earlier outage must not be
    // served in the next. Both at once: in a worker the local one is its primary's.
    const [, shared] = await Promise.all([
      this.local.invalidate(tags),
      this.redis.run(
        async (client) => {
          await this.#increment(client, tags);
          return true;
        },
        () => false,
      ),
    ]);
    if (!shared) {
      for (const tag of tags) this.#pending.add(tag);
      if (this.#pending.size > MAX_PENDING_TAGS) this.#overflowed = true;
    }
  }

  /** On Redis's return: the invalidations made without it, before any answer is served from it. */
  async replay(): Promise<void> {
    const tags = [...this.#pending];
    const overflowed = this.#overflowed;
    this.#pending.clear();
    this.#overflowed = false;
    await this.redis.run(
      async (client) => {
        if (overflowed) {
          // Too many to name: every kept answer goes (their tags' counters cannot all be bumped).
          for await (const keys of client.scanStream({ match: `${ENTRY}*`, count: 500 })) if ((keys as string[]).length > 0) await client.unlink(...(keys as string[]));
        } else if (tags.length > 0) {
          await this.#increment(client, tags);
        }
      },
      () => {
        for (const tag of tags) this.#pending.add(tag);
        this.#overflowed ||= overflowed;
      },
    );
  }

  async #increment(client: SharedRedis['client'], tags: readonly string[]): Promise<void> {
    const multi = client.multi();
    // A counter outlives every answer kept under its former value (a reset to 0 must not revive one).
    for (const tag of tags) multi.incr(TAG + tag).pexpire(TAG + tag, this.#retentionMs + 60_000);
    await multi.exec();
    this.onEvent('invalidation');
  }
}
