// The circuit breaker of a gateway's upstream, owned by the gateway instance (like the pool): after a
// run of failures that say the upstream is down, calls fail at once instead of each waiting for
// its own timeout or refusal; after a cool-down one probe call goes through, and its result
// closes the circuit or opens it again.
import type { UpstreamOutcome } from './outcome.ts';

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Consecutive availability failures that open the circuit; 0 never opens it. */
  failures: number;
  /** How long the circuit stays open before a probe is let through. */
  cooldownMs: number;
}

export const DEFAULT_CIRCUIT: CircuitBreakerOptions = { failures: 5, cooldownMs: 5_000 };

/**
 * Whether an attempt's failure says the upstream is unavailable: a 5xx, a connection refused, reset
 * or cut short, or no answer in time. A 4xx (429 included: a throttling upstream is up) or an
 * envelope error is the upstream answering, as is a body that breaks the contract.
 */
export function isAvailabilityFailure(outcome: UpstreamOutcome): boolean {
  switch (outcome.kind) {
    case 'status':
      return outcome.status >= 500;
    case 'unavailable':
    case 'timeout':
      return true;
    default:
      return false;
  }
}

/** The right to make one call, and the duty to say how it went (exactly once). */
export interface CircuitPermit {
  /** The upstream answered (whatever it said, short of an availability failure). */
  success(): void;
  /** An availability failure. */
  failure(): void;
  /** The call says nothing of the upstream (cancelled by the client, or the gateway's own bug). */
  release(): void;
}

type Settle = (result: 'success' | 'failure' | 'release', probe: boolean, generation: number) => void;

/**
 * One call's permit: the first of its outcomes counts, later ones are ignored. A class rather
 * than closures: one is made for every upstream call.
 */
class Permit implements CircuitPermit {
  #settled = false;

  constructor(
    private readonly settle: Settle,
    /** Made while half-open: the call is the probe. */
    private readonly probe: boolean,
    /** The breaker's state generation it was made in: a permit from an earlier state cannot move the circuit. */
    private readonly generation: number,
  ) {}

  success(): void {
    this.#end('success');
  }

  failure(): void {
    this.#end('failure');
  }

  release(): void {
    this.#end('release');
  }

  #end(result: 'success' | 'failure' | 'release'): void {
    if (this.#settled) return;
    this.#settled = true;
    this.settle(result, this.probe, this.generation);
  }
}

export class CircuitBreaker {
  #options: CircuitBreakerOptions;
  #state: CircuitState = 'closed';
  #failures = 0;
  #probing = false;
  /** Bumped at each state change: a permit from an earlier state cannot move the circuit. */
  #generation = 0;
  #timer: NodeJS.Timeout | undefined;

  readonly #onStateChange: ((state: CircuitState) => void) | undefined;

  /** `onStateChange` hears each move (for metrics and logs); it cannot change the breaker. */
  constructor(options: Partial<CircuitBreakerOptions> = {}, onStateChange?: (state: CircuitState) => void) {
    this.#options = { ...DEFAULT_CIRCUIT, ...options };
    this.#onStateChange = onStateChange;
  }

  get state(): CircuitState {
    return this.#state;
  }

  /** A permit for one call, or null: the circuit is open, or half-open with its probe in flight. */
  acquire(): CircuitPermit | null {
    if (this.#state === 'open') return null;
    const probe = this.#state === 'half-open';
    if (probe) {
      if (this.#probing) return null;
      this.#probing = true;
    }
    return new Permit(this.#settle, probe, this.#generation);
  }

  readonly #settle: Settle = (result, probe, generation) => {
    if (probe && generation === this.#generation) this.#probing = false;
    if (generation !== this.#generation) return;
    if (result === 'success') {
      this.#failures = 0;
      if (probe) this.#moveTo('closed');
    } else if (result === 'failure') {
      this.#failures += 1;
      const threshold = this.#options.failures;
      if (probe || (threshold > 0 && this.#failures >= threshold)) this.#open();
    }
  };

  /** Stops the cool-down timer (the gateway is shutting down). */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #open(): void {
    this.#moveTo('open');
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#state === 'open') this.#moveTo('half-open');
    }, this.#options.cooldownMs);
    // An open circuit must not keep the process alive.
    this.#timer.unref();
  }

  #moveTo(state: CircuitState): void {
    this.dispose();
    this.#state = state;
    this.#generation += 1;
    this.#probing = false;
    if (state === 'closed') this.#failures = 0;
    try {
      this.#onStateChange?.(state);
    } catch {
      // A metrics hook must not change the breaker.
    }
  }
}
