// The response cache: upstream GET answers (their JSON text) per key partition and path, bounded
// by bytes, with the tags that let a mutation invalidate them. Text, not parsed objects: every hit
// is parsed and checked again, so no two requests share an object a resolver could change, and
// the bytes counted are the bytes held.
//
// Invalidation by tag sequence: every invalidation of a tag stamps it with a new number from one
// counter; an answer is stored with the counter's value from before its call was sent, and is
// valid while none of its tags was stamped later. A read in flight when a mutation lands is thus
// never stored, and never served, even stale.
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export interface ResponseCacheSettings {
  /** How long an answer is served instead of a call (RESPONSE_CACHE_TTL_S). */
  ttlMs: number;
  /** How old an answer may be and still be served when the upstream fails (STALE_IF_ERROR_S). */
  staleIfErrorMs: number;
  /** The most the stored texts may take (RESPONSE_CACHE_MAX_BYTES). */
  maxBytes: number;
}

interface Stored {
  text: string;
  storedAt: number;
  /** The counter before the call was sent. */
  sequence: number;
  tags: readonly string[];
}

export interface CachedAnswer {
  text: string;
  ageMs: number;
}

/** What the upstream client asks of a response cache: this process's (ResponseCache) or one shared by replicas. */
export interface ResponseCacheStore {
  /** A fresh answer, or the stamp to keep the call's answer with (what invalidations it must not have missed). */
  lookup(partition: string, path: string, tags: readonly string[]): Promise<{ fresh: CachedAnswer } | { stamp: unknown }>;
  /** An answer up to STALE_IF_ERROR_S old, never an invalidated one. */
  stale(partition: string, path: string, tags: readonly string[]): Promise<CachedAnswer | undefined>;
  /** Keeps an answer unless one of its tags was invalidated since `lookup` gave `stamp`. Never fails. */
  keep(partition: string, path: string, text: string, tags: readonly string[], stamp: unknown): Promise<void>;
  /** Answers with one of these tags stop being served, for every key (and every replica). */
  invalidate(tags: readonly string[]): Promise<void>;
}

/** What one store or lookup learned, for the metrics. */
export type CacheEvent = 'hit' | 'miss' | 'stale' | 'store' | 'invalidation';

/** Tags stamped at most (one per organization an invalidation named); older stamps are dropped first. */
const MAX_TAGS = 10_000;
/** A stored answer's cost beyond its text: the key, the record, the cache's own bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 200;

export class ResponseCache implements ResponseCacheStore {
  readonly #settings: ResponseCacheSettings;
  readonly #answers: LRUCache<string, Stored>;
  /** Each invalidated tag's stamp, and when it was stamped. */
  readonly #stamps = new Map<string, { sequence: number; at: number }>();
  #sequence = 0;
  /**
   * Names this cache's stamps: one handed out by another cache (a workers' primary's, when the
   * primary stopped answering between a lookup and its keep) keeps nothing here.
   */
  readonly #origin = randomUUID();
  readonly #onEvent: (event: CacheEvent) => void;

  constructor(settings: ResponseCacheSettings, onEvent: (event: CacheEvent) => void = () => {}) {
    this.#settings = settings;
    this.#onEvent = onEvent;
    this.#answers = new LRUCache<string, Stored>({
      maxSize: settings.maxBytes,
      // JS strings may hold two bytes per character: count them so, and the bound holds.
      sizeCalculation: (stored, key) => (stored.text.length + key.length) * 2 + ENTRY_OVERHEAD_BYTES,
      // Kept as long as either use of it lasts; an answer larger than the whole bound is not kept.
      ttl: Math.max(settings.ttlMs, settings.staleIfErrorMs),
      maxEntrySize: settings.maxBytes,
    });
  }

  async lookup(partition: string, path: string): Promise<{ fresh: CachedAnswer } | { stamp: { sequence: number; origin: string } }> {
    const fresh = this.fresh(partition, path);
    return fresh === undefined ? { stamp: { sequence: this.begin(), origin: this.#origin } } : { fresh };
  }

  async keep(partition: string, path: string, text: string, tags: readonly string[], stamp: unknown): Promise<void> {
    const given = stamp as { sequence?: unknown; origin?: unknown } | undefined;
    if (given?.origin !== this.#origin || typeof given.sequence !== 'number') return;
    this.store(partition, path, text, tags, given.sequence);
  }

  async invalidate(tags: readonly string[]): Promise<void> {
    this.invalidateNow(tags);
  }

  async stale(partition: string, path: string): Promise<CachedAnswer | undefined> {
    return this.staleNow(partition, path);
  }

  /** The value to pass to `store` for a call about to be sent. */
  begin(): number {
    return this.#sequence;
  }

  /** A fresh answer (younger than the TTL) for this partition and path, if one is valid. */
  fresh(partition: string, path: string, now = Date.now()): CachedAnswer | undefined {
    const answer = this.#valid(partition, path, now);
    if (answer !== undefined && answer.ageMs < this.#settings.ttlMs) {
      this.#onEvent('hit');
      return answer;
    }
    this.#onEvent('miss');
    return undefined;
  }

  /** An answer up to STALE_IF_ERROR_S old, for when the upstream failed; never an invalidated one. */
  staleNow(partition: string, path: string, now = Date.now()): CachedAnswer | undefined {
    const answer = this.#valid(partition, path, now);
    if (answer === undefined || answer.ageMs > this.#settings.staleIfErrorMs) return undefined;
    this.#onEvent('stale');
    return answer;
  }

  /** Keeps an answer, unless one of its tags was invalidated since `begin()`. */
  store(partition: string, path: string, text: string, tags: readonly string[], sequence: number, now = Date.now()): void {
    if (tags.some((tag) => (this.#stamps.get(tag)?.sequence ?? -1) > sequence)) return;
    this.#answers.set(`${partition} ${path}`, { text, storedAt: now, sequence, tags });
    this.#onEvent('store');
  }

  /** Every answer carrying one of these tags, for every partition, stops being served. */
  invalidateNow(tags: readonly string[], now = Date.now()): void {
    if (tags.length === 0) return;
    this.#sequence += 1;
    for (const tag of tags) {
      this.#stamps.delete(tag);
      this.#stamps.set(tag, { sequence: this.#sequence, at: now });
    }
    this.#onEvent('invalidation');
    if (this.#stamps.size > MAX_TAGS) this.#forgetOldStamps(now);
  }

  /** The bytes the stored answers are counted at. */
  get bytes(): number {
    return this.#answers.calculatedSize;
  }

  #valid(partition: string, path: string, now: number): CachedAnswer | undefined {
    const stored = this.#answers.get(`${partition} ${path}`);
    if (stored === undefined) return undefined;
    for (const tag of stored.tags) {
      if ((this.#stamps.get(tag)?.sequence ?? -1) > stored.sequence) return undefined;
    }
    return { text: stored.text, ageMs: Math.max(0, now - stored.storedAt) };
  }

  /**
   * Stamps older than any kept answer decide nothing and go. Should a flood of invalidations leave
   * more than MAX_TAGS younger ones, the oldest go with every answer: nothing stale survives.
   */
  #forgetOldStamps(now: number): void {
    const keptSince = now - Math.max(this.#settings.ttlMs, this.#settings.staleIfErrorMs);
    for (const [tag, stamp] of this.#stamps) if (stamp.at < keptSince) this.#stamps.delete(tag);
    if (this.#stamps.size > MAX_TAGS) {
      this.#answers.clear();
      this.#stamps.clear();
    }
  }
}
