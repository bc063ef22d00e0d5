// Downloads at once, bounded in all and per key: a download holds an upstream connection for as
// long as its client reads, so without a bound one tenant's downloads (or one leaked link's) take
// every connection there is. A refusal says which bound it met, and when to try again.

/** What a refused download is told to wait: a download rarely ends sooner than this. */
export const RETRY_AFTER_S = 5;

export type Slot = { ok: true; release(): void } | { ok: false; bound: 'key' | 'all' };

export class DownloadSlots {
  readonly #perKey = new Map<string, number>();
  #total = 0;

  constructor(
    private readonly maxTotal: number,
    private readonly maxPerKey: number,
  ) {}

  get active(): number {
    return this.#total;
  }

  /** A slot for one download acting with the key whose hash is `keyHash`; release it exactly once. */
  take(keyHash: string): Slot {
    const held = this.#perKey.get(keyHash) ?? 0;
    if (held >= this.maxPerKey) return { ok: false, bound: 'key' };
    if (this.#total >= this.maxTotal) return { ok: false, bound: 'all' };
    this.#perKey.set(keyHash, held + 1);
    this.#total += 1;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.#total -= 1;
        const left = (this.#perKey.get(keyHash) ?? 1) - 1;
        if (left > 0) this.#perKey.set(keyHash, left);
        else this.#perKey.delete(keyHash);
      },
    };
  }
}
