// The upstream client of one GraphQL request: it carries that request's key, the operation's
// deadline, its cancellation and its hooks, over the transport its gateway owns. Every call goes
// through `call()`: deadlines, retries of GETs, the retry budget and the breaker are applied there
// and nowhere else, and every failure leaves it as one of the contract's error codes. A response
// cache, when the caller brings one, is asked about each call through `CallerCache`.
import { ErrorCode, RequestCancelledError, isCancelled, unauthenticated, UpstreamError } from '../errors.ts';
import { ContractViolation } from './check.ts';
import { isAvailabilityFailure, type CircuitBreaker, type CircuitPermit } from './circuit-breaker.ts';
import { checkEnvelope, parseJsonObject, upstreamDetail } from './envelope.ts';
import { AttemptFailed, exchange, firstHeader, type RawResponse } from './exchange.ts';
import { redactKey, retryAfterMs, upstreamError, type UpstreamOutcome } from './outcome.ts';
import { backoffMs, isRetryable } from './retry.ts';
import { fillPath, type HttpMethod, type Route } from './routes.ts';
import type { CallInput, CallerOptions, CallOutcome, CallRecord, TransportState } from './call-types.ts';

export type { CacheUse, CallerCache, CallInput, CallerOptions, CallOutcome, CallRecord, KeptAnswer, RetryRecord, TransportState } from './call-types.ts';

/**
 * Less time than this left, and an attempt is not made: it could not be answered in time (and
 * timers may fire a millisecond early, so "the deadline has passed" needs a margin anyway).
 */
const MIN_ATTEMPT_MS = 10;

/** When a call's attempts must end, and which deadline that is. */
interface Deadline {
  at: number;
  by: 'call' | 'operation';
}

/** An answer parsed, with its body's text for the cache to keep. */
type Answer<T> = { value: T; text: string };

type Attempt<T> = ({ ok: true } & Answer<T>) | { ok: false; outcome: UpstreamOutcome; error: UpstreamError };

/** Failures a stale answer may stand in for: the upstream is down, slow, or its circuit open. */
const STALE_IF_ERROR_CODES: ReadonlySet<ErrorCode> = new Set([ErrorCode.UPSTREAM_UNAVAILABLE, ErrorCode.UPSTREAM_TIMEOUT]);

/** A kept answer as the response it was: only 2xx answers with `error: 0` are kept. */
function cachedResponse(text: string): RawResponse {
  return { status: 200, headers: {}, text };
}

export class UpstreamClient {
  readonly #transport: TransportState;
  readonly #caller: CallerOptions;
  readonly #deadlineMs: number;
  readonly #maxBodyBytes: number;
  readonly #retries: number;
  readonly #operationEndsAt: number;
  /** Cancels of the calls in flight: one listener on the request's signal serves them all. */
  readonly #inflight = new Set<() => void>();

  constructor(transport: TransportState, caller: CallerOptions) {
    this.#transport = transport;
    this.#caller = caller;
    const { defaults } = transport;
    this.#deadlineMs = caller.deadlineMs ?? defaults.deadlineMs;
    this.#maxBodyBytes = caller.maxBodyBytes ?? defaults.maxBodyBytes;
    this.#retries = Math.max(0, Math.floor(caller.retries ?? defaults.retries));
    this.#operationEndsAt = caller.operationTimeoutMs === undefined ? Infinity : performance.now() + caller.operationTimeoutMs;
    caller.signal?.addEventListener('abort', () => this.#inflight.forEach((cancel) => cancel()), { once: true });
  }

  /**
   * One logical call: up to 1 + `retries` attempts for a GET (mutations get exactly one), each
   * let through by the circuit breaker, all of them within the call's deadline and the
   * operation's. The error of the last attempt is the call's.
   */
  async call<T>(route: Route<T>, input: CallInput = {}): Promise<T> {
    const { method } = route;
    const { apiKey, signal, cache } = this.#caller;
    if (signal?.aborted) throw new RequestCancelledError();
    if (apiKey === '') throw unauthenticated();
    if (!/^[\x21-\x7e]+$/.test(apiKey)) throw unauthenticated('The API key is empty or has characters a header cannot carry');
    const search = input.query?.toString();
    const path = `${this.#transport.basePath}${fillPath(route, input.params)}${search ? `?${search}` : ''}`;
    const use = input.live && route.method === 'GET' ? undefined : cache?.use(route, input);
    const tags = use !== undefined && 'read' in use ? use.read : undefined;
    let stamp: unknown;
    if (cache !== undefined && tags !== undefined) {
      const found = await cache.lookup(path, tags);
      // An answer from the cache is no upstream call: not counted, not charged, not sent.
      if ('fresh' in found) return this.#interpret(route, cachedResponse(found.fresh.text)).value;
      stamp = found.stamp;
    }
    this.#caller.beforeCall?.();

    const deadline = this.#deadline();
    // Past the operation's deadline nothing is sent: the field fails, the rest of the answer goes.
    if (deadline.at - performance.now() < MIN_ATTEMPT_MS) throw upstreamError({ kind: 'timeout', sent: false }, method);
    try {
      const answer = await this.#attempts(route, path, input.body, deadline);
      const { text } = answer;
      // Kept in the background: the answer does not wait for the cache.
      if (cache !== undefined && tags !== undefined) void cache.keep(path, text, tags, stamp);
      return answer.value;
    } catch (error) {
      // The upstream failed where another answer would have done: one kept from before, within
      // the cache's stale window, and handed to the cache as stale so that the response can say so.
      if (cache !== undefined && tags !== undefined && error instanceof UpstreamError && STALE_IF_ERROR_CODES.has(error.code)) {
        const stale = await cache.stale(path, tags);
        if (stale !== undefined) {
          const { value } = this.#interpret(route, cachedResponse(stale.text));
          cache.servedStale(value, stale.ageMs);
          return value;
        }
      }
      throw error;
    } finally {
      // Whatever a mutation's outcome, it may have changed what it names (a timeout can hide a success).
      // Done before the mutation answers: the next read, on any replica, sees it.
      if (cache !== undefined && use !== undefined && 'invalidates' in use) await cache.invalidate(use.invalidates);
    }
  }

  /** Up to 1 + `retries` attempts (GETs only), each let through by the breaker; the last error is the call's. */
  async #attempts<T>(route: Route<T>, path: string, body: unknown, deadline: Deadline): Promise<Answer<T>> {
    const { method } = route;
    const { breaker, budget } = this.#transport;
    budget.deposit();
    let last: UpstreamError | undefined;
    for (let attempt = 1; ; attempt++) {
      const permit = breaker.acquire();
      if (permit === null) throw last ?? upstreamError({ kind: 'circuitOpen' }, method);
      const result = await this.#attempt(route, path, body, attempt, deadline, permit);
      if (result.ok) return result;
      last = result.error;
      const delay = this.#retryDelay(method, attempt, result.outcome, deadline);
      if (delay === undefined || breaker.state === 'open' || !budget.tryWithdraw()) throw last;
      this.#report(this.#caller.onRetry, {
        route: route.name,
        method,
        attempt: attempt + 1,
        delayMs: delay,
        after: last.code,
        status: result.outcome.kind === 'status' ? result.outcome.status : null,
      });
      await this.#sleep(delay);
    }
  }

  /** The wait before another attempt, or undefined when there is to be none. */
  #retryDelay(method: HttpMethod, attempt: number, outcome: UpstreamOutcome, deadline: Deadline): number | undefined {
    if (method !== 'GET' || attempt > this.#retries || !isRetryable(outcome)) return undefined;
    const hinted = outcome.kind === 'status' ? retryAfterMs(outcome.retryAfter) : undefined;
    const delay = Math.max(hinted ?? 0, backoffMs(attempt, this.#transport.defaults.backoff));
    // A Retry-After past the deadline: the caller learns it at once (RATE_LIMITED with retryAfter).
    return delay + MIN_ATTEMPT_MS <= deadline.at - performance.now() ? delay : undefined;
  }

  /** The end of a call starting now: its own deadline, or the operation's when that comes first. */
  #deadline(): Deadline {
    const own = performance.now() + this.#deadlineMs;
    return own <= this.#operationEndsAt ? { at: own, by: 'call' } : { at: this.#operationEndsAt, by: 'operation' };
  }

  readonly #track = (cancel: () => void): (() => void) => {
    this.#inflight.add(cancel);
    return () => this.#inflight.delete(cancel);
  };

  /** One attempt, reported to `onCall` and to the breaker. Throws only a cancellation or a bug. */
  async #attempt<T>(route: Route<T>, path: string, body: unknown, attempt: number, deadline: Deadline, permit: CircuitPermit): Promise<Attempt<T>> {
    const { method } = route;
    const started = performance.now();
    const seen: { status: number | null } = { status: null };
    let outcome: CallOutcome = 'ok';
    let cause: CallRecord['cause'];
    let health: 'success' | 'failure' | 'release' = 'release';
    const span = this.#caller.trace?.attempt(route, attempt);
    try {
      if (this.#caller.signal?.aborted) throw new RequestCancelledError();
      const response = await exchange({
        pool: this.#transport.pool,
        method,
        path,
        apiKey: this.#caller.apiKey,
        body,
        deadlineAt: deadline.at,
        maxBodyBytes: this.#maxBodyBytes,
        track: this.#track,
        seen,
        ...(span === undefined ? {} : { extraHeaders: span.headers }),
      });
      const { value, text } = this.#interpret(route, response);
      health = 'success';
      return { ok: true, value, text };
    } catch (err) {
      if (err instanceof AttemptFailed) {
        const error = upstreamError(err.outcome, method, route.fields);
        outcome = error.code;
        cause = err.outcome.kind === 'timeout' ? 'timeout' : err.outcome.kind === 'unavailable' ? err.outcome.cause : undefined;
        // Running out of the operation's time says nothing of the upstream's health.
        const available = !isAvailabilityFailure(err.outcome);
        health = available ? 'success' : err.outcome.kind === 'timeout' && deadline.by === 'operation' ? 'release' : 'failure';
        return { ok: false, outcome: err.outcome, error };
      }
      outcome = isCancelled(err) ? 'CANCELLED' : ErrorCode.INTERNAL_SERVER_ERROR;
      throw err;
    } finally {
      permit[health]();
      const record: CallRecord = {
        route: route.name,
        method,
        status: seen.status,
        durationMs: performance.now() - started,
        outcome,
        attempt,
        ...(cause === undefined ? {} : { cause }),
      };
      this.#report(this.#caller.onCall, record);
      if (span !== undefined) this.#report(span.end, record);
    }
  }

  #report<R>(hook: ((record: R) => void) | undefined, record: R): void {
    try {
      hook?.(record);
    } catch {
      // A metrics hook must not change the result of the call.
    }
  }

  /** Waits before a retry; the request's signal cuts the wait short with a cancellation. */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const cancel = () => {
        clearTimeout(timer);
        this.#inflight.delete(cancel);
        reject(new RequestCancelledError());
      };
      const timer = setTimeout(() => {
        this.#inflight.delete(cancel);
        resolve();
      }, ms);
      this.#inflight.add(cancel);
      if (this.#caller.signal?.aborted) cancel();
    });
  }

  /** The response as the operation's result, or the outcome that fails the attempt. */
  #interpret<T>(route: Route<T>, response: RawResponse): Answer<T> {
    const { status, text } = response;
    const body = parseJsonObject(text);
    const key = this.#caller.apiKey;
    if (status < 200 || status >= 300) {
      throw new AttemptFailed({
        kind: 'status',
        status,
        detail: redactKey(upstreamDetail(status, body), key),
        retryAfter: firstHeader(response.headers['retry-after']),
      });
    }
    if (body === undefined) throw new AttemptFailed({ kind: 'badResponse', status, reason: 'body: expected a JSON object' });
    try {
      checkEnvelope(body);
      if (body.error !== 0) throw new AttemptFailed({ kind: 'status', status, detail: redactKey(upstreamDetail(status, body), key) });
      const value = route.result(body);
      return { value, text };
    } catch (err) {
      if (err instanceof ContractViolation) throw new AttemptFailed({ kind: 'badResponse', status, reason: err.reason });
      throw err;
    }
  }
}
