// Each key's bucket of upstream calls: `limit` calls, restored continuously at `restorePerSecond`.
// An operation reserves its estimate before it runs and settles to what it actually spent after.
// Behind this interface so that a store shared by replicas (one atomic script per reservation)
// can take the in-memory one's place.

export interface BucketSettings {
  limit: number;
  restorePerSecond: number;
}

export type Reservation =
  | { ok: true; remaining: number }
  /** Refused: `retryAfterS` is when enough will have been restored. */
  | { ok: false; remaining: number; retryAfterS: number };

export interface BucketStore {
  /** Takes `calls` (at most the bucket's `limit`) from the bucket of `key` if that many are left (all or nothing). */
  reserve(key: string, calls: number, now?: number): Promise<Reservation>;
  /** Gives back `reserved − spent` (takes more when the operation spent more); returns what is left. */
  settle(key: string, reserved: number, spent: number, now?: number): Promise<number>;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Past this many buckets, the full ones (no different from a new one) are dropped. */
const MAX_BUCKETS = 10_000;

export class MemoryBuckets implements BucketStore {
  readonly #buckets = new Map<string, Bucket>();

  constructor(private readonly settings: BucketSettings) {}

  async reserve(key: string, calls: number, now = Date.now()): Promise<Reservation> {
    const bucket = this.#refilled(key, now);
    if (calls > bucket.tokens) {
      const retryAfterS = Math.max(1, Math.ceil((calls - bucket.tokens) / this.settings.restorePerSecond));
      return { ok: false, remaining: Math.max(0, Math.floor(bucket.tokens)), retryAfterS };
    }
    bucket.tokens -= calls;
    return { ok: true, remaining: Math.max(0, Math.floor(bucket.tokens)) };
  }

  async settle(key: string, reserved: number, spent: number, now = Date.now()): Promise<number> {
    const bucket = this.#refilled(key, now);
    bucket.tokens = Math.min(this.settings.limit, bucket.tokens + reserved - spent);
    return Math.max(0, Math.floor(bucket.tokens));
  }

  #refilled(key: string, now: number): Bucket {
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      if (this.#buckets.size >= MAX_BUCKETS) this.#dropFull(now);
      bucket = { tokens: this.settings.limit, at: now };
      this.#buckets.set(key, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(this.settings.limit, bucket.tokens + ((now - bucket.at) / 1000) * this.settings.restorePerSecond);
    bucket.at = now;
    return bucket;
  }

  #dropFull(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.settings.restorePerSecond >= this.settings.limit) this.#buckets.delete(key);
    }
  }
}
