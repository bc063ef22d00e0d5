// Throttle buckets shared by every replica: one bucket per key hash in Redis, each reservation and
// settlement one atomic script (refill, then take or give back) timed by Redis's own clock, so
// replicas whose clocks differ still agree. While Redis is unreachable, each replica throttles
// with its own buckets (MemoryBuckets): a key may then get up to one bucket per replica, but one
// across the workers of GATEWAY_WORKERS (their primary keeps them).
import { MemoryBuckets, type BucketSettings, type BucketStore, type Reservation } from './buckets.ts';
import { localStore } from '../shared-state/local-state.ts';
import type { SharedRedis } from '../shared-state/redis.ts';

const PREFIX = 'gw:bucket:';

// KEYS[1] the bucket; ARGV: limit, restore per second, calls to take (reserve) or give back
// (settle: reserved − spent, may be negative), mode. Returns { ok, remaining, retryAfterS }.
const SCRIPT = `
local limit = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local amount = tonumber(ARGV[3])
local mode = ARGV[4]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(stored[1])
local at = tonumber(stored[2])
if tokens == nil then tokens = limit; at = now end
tokens = math.min(limit, tokens + (now - at) / 1000 * rate)
local ok = 1
local retry = 0
if mode == 'reserve' then
  if amount > tokens then
    ok = 0
    retry = math.max(1, math.ceil((amount - tokens) / rate))
  else
    tokens = tokens - amount
  end
else
  tokens = math.min(limit, tokens + amount)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
-- Gone once it would be full again anyway: a full bucket and no bucket are the same.
redis.call('PEXPIRE', KEYS[1], math.ceil((limit - math.min(tokens, limit) + 1) / rate * 1000) + 1000)
return { ok, math.max(0, math.floor(tokens)), retry }
`;

/** The buckets while Redis is unreachable, as a lone process or a workers' primary keeps them. */
export const localBuckets = (settings: BucketSettings) => localStore<BucketStore>('throttle-buckets', ['reserve', 'settle'], () => new MemoryBuckets(settings));

type BucketCommand = (key: string, limit: number, rate: number, amount: number, mode: 'reserve' | 'settle') => Promise<[number, number, number]>;

export class RedisBuckets implements BucketStore {
  readonly #local: BucketStore;
  readonly #bucket: BucketCommand;

  constructor(
    private readonly redis: SharedRedis,
    private readonly settings: BucketSettings,
  ) {
    this.#local = redis.local.of(localBuckets(settings));
    // Sent once, then run by its hash (EVALSHA; ioredis sends it again if Redis forgot it).
    redis.client.defineCommand('gatewayBucket', { numberOfKeys: 1, lua: SCRIPT });
    const client = redis.client as unknown as { gatewayBucket: BucketCommand };
    this.#bucket = (...args) => client.gatewayBucket(...args);
  }

  async reserve(key: string, calls: number, now?: number): Promise<Reservation> {
    return this.redis.run(
      async () => {
        const [ok, remaining, retryAfterS] = await this.#bucket(PREFIX + key, this.settings.limit, this.settings.restorePerSecond, calls, 'reserve');
        return ok === 1 ? { ok: true, remaining } : { ok: false, remaining, retryAfterS };
      },
      () => this.#local.reserve(key, calls, now),
    );
  }

  async settle(key: string, reserved: number, spent: number, now?: number): Promise<number> {
    return this.redis.run(
      async () => (await this.#bucket(PREFIX + key, this.settings.limit, this.settings.restorePerSecond, reserved - spent, 'settle'))[1],
      () => this.#local.settle(key, reserved, spent, now),
    );
  }
}
