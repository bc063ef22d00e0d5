// The transport to one v1 upstream, owned by the gateway instance that made it: the connection
// pool, the circuit breaker, the retry budget and the readiness probe's own connection live here,
// made once at start and closed with the gateway. Nothing of it is process-wide: two gateways in
// one process (tests do this) never share or reconfigure each other's state. Each GraphQL request
// gets its own UpstreamClient from `client()`, carrying its key, deadlines and cancellation.
import type { Pool } from 'undici';
import { isCancelled } from '../errors.ts';
import { CircuitBreaker, type CircuitBreakerOptions, type CircuitState } from './circuit-breaker.ts';
import { UpstreamClient, type CallerOptions } from './client.ts';
import { parseJsonObject } from './envelope.ts';
import { AttemptFailed, exchange } from './exchange.ts';
import { createPool, DEFAULT_CONNECTIONS, type PoolOptions } from './pool.ts';
import { DEFAULT_BACKOFF, RetryBudget, type BackoffOptions } from './retry.ts';

export interface TransportOptions {
  /** The service base, without `/api/v1` (may carry a path prefix). */
  baseUrl: string;
  /** Deadline of each call, headers and body together, its retries and their waits included. Default 10 s. */
  deadlineMs?: number;
  /** Cap on a response body; over it the reading stops and the call is UPSTREAM_BAD_RESPONSE. Default 8 MiB. */
  maxBodyBytes?: number;
  /** Extra attempts of a GET that failed in a way another attempt may fix; 0 disables. Default 2. */
  retries?: number;
  /** Backoff between attempts. Default full jitter from 50 ms, capped at 1 s. */
  backoff?: BackoffOptions;
  /** Thresholds of the circuit breaker. Default 5 failures, 5 s cool-down. */
  circuitBreaker?: Partial<CircuitBreakerOptions>;
  /** Hears each move of the circuit (metrics, logs). */
  onCircuitStateChange?: (state: CircuitState) => void;
  pool?: PoolOptions;
  /**
   * What `answers()` GETs to learn whether the upstream is up, below the base URL: a cheap read
   * (a page of one), e.g. `/api/v1/atb?limit=1`. Without it, `answers()` GETs the base path.
   */
  readinessProbe?: string;
}

/** What every call of this transport uses unless its caller says otherwise. */
export interface CallSettings {
  deadlineMs: number;
  maxBodyBytes: number;
  retries: number;
  backoff: BackoffOptions;
}

const DEFAULT_DEADLINE_MS = 10_000;
const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
/** Extra attempts of a failed GET (3 attempts in all). */
const DEFAULT_RETRIES = 2;
/** How long `/readyz` waits for the upstream, and the most of its answer it reads (a page of one). */
const READINESS_DEADLINE_MS = 2_000;
const READINESS_MAX_BODY_BYTES = 64 * 1024;

export class Transport {
  readonly pool: Pool;
  readonly breaker: CircuitBreaker;
  readonly budget = new RetryBudget();
  /** The base URL's path, without a trailing slash: prefixed to every route. */
  readonly basePath: string;
  readonly defaults: CallSettings;
  /**
   * The readiness probe's own connection: behind 64 busy GraphQL calls it would wait out its
   * deadline and call a busy gateway unready while the upstream answers. Opened on first use.
   */
  #probePool: Pool | undefined;
  readonly #origin: string;
  readonly #probePath: string;
  readonly #connections: number;

  constructor(options: TransportOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new Error('The upstream base URL must be http or https');
    }
    this.#origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.#probePath = `${this.basePath}${options.readinessProbe ?? '/'}`;
    this.pool = createPool(base, options.pool);
    this.#connections = options.pool?.connections ?? DEFAULT_CONNECTIONS;
    this.breaker = new CircuitBreaker(options.circuitBreaker, options.onCircuitStateChange);
    this.defaults = {
      deadlineMs: options.deadlineMs ?? DEFAULT_DEADLINE_MS,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      retries: Math.max(0, Math.floor(options.retries ?? DEFAULT_RETRIES)),
      backoff: options.backoff ?? DEFAULT_BACKOFF,
    };
  }

  /** The client of one GraphQL request (or one subscriber, one export): cheap to make. */
  client(caller: CallerOptions): UpstreamClient {
    return new UpstreamClient(this, caller);
  }

  /**
   * Whether the upstream answers with its v1 envelope at all (for `/readyz`): one GET of the
   * readiness probe on the probe's own connection, with a short deadline and a small body cap,
   * not retried, not counted by the breaker. It needs no key: a 401's envelope says the service
   * is up as well as a page would.
   */
  async answers(): Promise<{ ok: true } | { ok: false; cause: string }> {
    this.#probePool ??= createPool(this.#origin, { connections: 1 });
    try {
      const response = await exchange({
        pool: this.#probePool,
        method: 'GET',
        path: this.#probePath,
        apiKey: '',
        deadlineAt: performance.now() + READINESS_DEADLINE_MS,
        maxBodyBytes: READINESS_MAX_BODY_BYTES,
        track: () => () => {},
        seen: { status: null },
      });
      if (Number.isSafeInteger(parseJsonObject(response.text)?.error)) return { ok: true };
      return { ok: false, cause: `an answer that is not the v1 envelope (HTTP ${response.status})` };
    } catch (error) {
      if (error instanceof AttemptFailed) {
        const { outcome } = error;
        return { ok: false, cause: outcome.kind === 'unavailable' ? (outcome.cause ?? 'connection reset') : outcome.kind === 'timeout' ? 'timeout' : 'a response that breaks the v1 contract' };
      }
      if (isCancelled(error)) return { ok: false, cause: 'cancelled' };
      throw error;
    }
  }

  /**
   * Whether every connection of the pool is busy and calls wait for one: the gateway then answers
   * late whatever the upstream does, which a load balancer should hear from `/readyz`.
   */
  get saturated(): boolean {
    const stats = this.pool.stats;
    return stats.free === 0 && stats.connected >= this.#connections && stats.queued + stats.pending > 0;
  }

  /** After the requests in flight: idle sockets go at once, the breaker's timer stops. */
  async close(): Promise<void> {
    this.breaker.dispose();
    await Promise.all([this.pool.close(), this.#probePool?.close()]);
  }
}
