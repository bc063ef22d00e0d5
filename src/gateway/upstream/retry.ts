// When a failed upstream read is worth another attempt, how long to wait before it, and the
// budget that keeps retries from multiplying an outage. The transport applies them; only GETs are
// ever retried (a mutation's second attempt could apply the change twice).
import type { UpstreamOutcome } from './outcome.ts';

/**
 * Statuses that say "try again": the upstream (or a proxy before it) is overloaded or restarting.
 * 500 is included: a read is idempotent, and a 500 under load is as often transient as a 503.
 * 501 and 505 are not: they say the same thing every time.
 */
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);

/**
 * A failed attempt that another attempt may fix: the statuses above, and a connection refused,
 * reset or cut short. Not a timeout (the call's deadline covers all its attempts, so it is spent),
 * not a 4xx, not a body that breaks the contract (the same request gets the same body).
 */
export function isRetryable(outcome: UpstreamOutcome): boolean {
  if (outcome.kind === 'status') return RETRY_STATUSES.has(outcome.status);
  return outcome.kind === 'unavailable';
}

export interface BackoffOptions {
  baseMs: number;
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 50, capMs: 1_000 };

/**
 * "Full jitter" exponential backoff before retry number `retry` (1 for the first retry): uniform
 * in [0, min(cap, base·2^(retry−1))), so that clients failing together do not retry together.
 */
export function backoffMs(retry: number, options: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}

// ---------------------------------------------------------------------------------------------
// Retry budget

export interface RetryBudgetOptions {
  /** Tokens each call (first attempt) earns: retries add at most this share to the call volume. */
  ratio: number;
  /** Tokens earned per second regardless of traffic: the floor that lets a quiet gateway retry. */
  perSecond: number;
  /** Most tokens held, and the tokens a new budget starts with. */
  max: number;
}

export const DEFAULT_RETRY_BUDGET: RetryBudgetOptions = { ratio: 0.2, perSecond: 1, max: 10 };

/**
 * A token bucket shared by every request of one gateway to its upstream: each call deposits `ratio`, time adds
 * `perSecond`, each retry withdraws one. While the upstream is down, every call fails and wants
 * retries, but the retries stay near `ratio` of the calls (plus the floor) instead of doubling or
 * tripling the load on an upstream that is trying to come back.
 */
export class RetryBudget {
  #tokens: number;
  #refilledAt = performance.now();

  constructor(readonly options: RetryBudgetOptions = DEFAULT_RETRY_BUDGET) {
    this.#tokens = options.max;
  }

  /** One call is starting. */
  deposit(): void {
    this.#refill();
    this.#tokens = Math.min(this.options.max, this.#tokens + this.options.ratio);
  }

  /** Takes a token for one retry; false when the budget is spent (the call fails as it is). */
  tryWithdraw(): boolean {
    this.#refill();
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  #refill(): void {
    const now = performance.now();
    this.#tokens = Math.min(this.options.max, this.#tokens + ((now - this.#refilledAt) / 1000) * this.options.perSecond);
    this.#refilledAt = now;
  }
}
