// The only code that speaks HTTP to the v1 upstream. One V1Client per GraphQL request (it carries
// that request's key, deadlines and abort signal); the connections, the circuit breaker and the
// retry budget are per upstream origin, for the whole process. Every method goes through the
// private `request()`: deadlines, retries of GETs and the breaker are applied there and nowhere else.
import { EventEmitter } from 'node:events';
import { errors as undiciErrors, type Dispatcher, type Pool } from 'undici';
import type {
  WireList,
  WireProtectionDevice,
  WireSecurityFramework,
  WireTrafficLogEntry,
  WireWebProtectionRecord,
} from './wire.ts';
import {
  ErrorCode,
  RequestCancelledError,
  isCancelled,
  unauthenticated,
  upstreamError,
  type UpstreamDetail,
  type UpstreamError,
  type UpstreamOutcome,
} from '../errors.ts';
import { circuitFor, isAvailabilityFailure, type CircuitBreaker, type CircuitBreakerOptions, type CircuitPermit } from './circuit-breaker.ts';
import {
  ContractViolation,
  checkEnvelope,
  expectCreatedId,
  expectProtectionDeviceList,
  expectSecurityFramework,
  expectSecurityFrameworkList,
  expectTrafficList,
  expectWebProtectionRecord,
  parseJsonObject,
  upstreamDetail,
  type SuccessCheck,
} from './envelope.ts';
import { getPool } from './pool.ts';
import { backoffMs, DEFAULT_BACKOFF, isRetryable, retryAfterMs, retryBudgetFor, type BackoffOptions, type RetryBudget } from './retry.ts';
import { fillPath, routeName, routes, type HttpMethod, type Route } from './routes.ts';

const DEFAULT_DEADLINE_MS = 10_000;
const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
/** Extra attempts of a failed GET (3 attempts in all). */
const DEFAULT_RETRIES = 2;
/**
 * Less time than this left, and an attempt is not made: it could not be answered in time (and
 * timers may fire a millisecond early, so "the deadline has passed" needs a margin anyway).
 */
const MIN_ATTEMPT_MS = 10;

/** How one upstream call ended: `ok`, the error code it became, or `CANCELLED`. */
export type CallOutcome = 'ok' | ErrorCode | 'CANCELLED';

/** What `onCall` learns of each attempt. Never the key, never an id: `route` is the template. */
export interface CallRecord {
  /** e.g. `GET /api/v1/atb/{id}/traffic` */
  route: string;
  method: HttpMethod;
  /** The response status, or null when none came (refused, reset before headers, timeout, cancel). */
  status: number | null;
  durationMs: number;
  outcome: CallOutcome;
  /** 1 for a call's first attempt, 2 and up for its retries. */
  attempt: number;
}

/** What `onRetry` learns of each retry, before its wait. */
export interface RetryRecord {
  route: string;
  method: HttpMethod;
  /** The attempt about to be made (2 for the first retry). */
  attempt: number;
  /** The wait before it: jittered backoff, or the upstream's `Retry-After` when longer. */
  delayMs: number;
  /** The error code of the attempt that failed. */
  after: ErrorCode;
  /** Its response status, or null when none came. */
  status: number | null;
}

export interface V1ClientOptions {
  /** The service base, without `/api/v1` (may carry a path prefix). */
  baseUrl: string;
  /** Sent as `X-Service-Token`; never logged, never in an error, never in `onCall`. */
  apiKey: string;
  /** Deadline of each call, headers and body together, its retries and their waits included. Default 10 s. */
  deadlineMs?: number;
  /**
   * Deadline of the whole GraphQL operation, counted from the client's creation: a call never runs
   * past it (UPSTREAM_TIMEOUT), and a call that would start after it is not sent. Default none.
   */
  operationTimeoutMs?: number;
  /** Aborts every call (the GraphQL request went away): they reject with RequestCancelledError. */
  signal?: AbortSignal;
  /** Called once per attempt, after it ended, for logs, metrics and call counting. */
  onCall?: (call: CallRecord) => void;
  /** Called before each retry's wait (for `upstream_retries_total`). */
  onRetry?: (retry: RetryRecord) => void;
  /**
   * Called once per call before anything is sent (not for retries); throwing refuses the call
   * with that error, e.g. when the operation's budget of upstream calls is spent.
   */
  beforeCall?: () => void;
  /** Cap on a response body; over it the reading stops and the call is UPSTREAM_BAD_RESPONSE. Default 8 MiB. */
  maxBodyBytes?: number;
  /** Extra attempts of a GET that failed in a way another attempt may fix; 0 disables. Default 2. */
  retries?: number;
  /** Backoff between attempts. Default full jitter from 50 ms, capped at 1 s. */
  backoff?: BackoffOptions;
  /** Thresholds of the upstream's (process-wide) circuit breaker. Default 5 failures, 5 s cool-down. */
  circuitBreaker?: Partial<CircuitBreakerOptions>;
  /** The connections to use. Default: the origin's pool, shared by every client of the process. */
  pool?: Pool;
}

export interface SecurityFrameworkBody {
  title: string;
  security_frameworks: unknown[];
}

export interface WebProtectionRecordPatch {
  organization?: number;
  fqdn?: string;
  email?: string;
  endpoint?: string;
  services?: string[];
}

export interface ListQuery {
  limit?: number | null;
  offset?: number | null;
  order?: string | null;
}

export interface ProtectionDeviceQuery extends ListQuery {
  organization?: string | number | null;
  services?: readonly string[] | null;
}

export interface TrafficQuery extends ListQuery {
  actions?: readonly string[] | null;
  search?: string | null;
}

type Id = string | number;

interface Call<T> {
  route: Route;
  params?: Record<string, string>;
  query?: URLSearchParams;
  body?: unknown;
  expect: SuccessCheck<T>;
}

interface RawResponse {
  status: number;
  headers: Dispatcher.ResponseData['headers'];
  text: string;
}

/** When a call's attempts must end, and which deadline that is. */
interface Deadline {
  at: number;
  by: 'call' | 'operation';
}

type Attempt<T> = { ok: true; value: T } | { ok: false; outcome: UpstreamOutcome; error: UpstreamError };

/** An attempt ended in an upstream outcome; `request()` decides what becomes of it. */
class AttemptFailed extends Error {
  constructor(readonly outcome: UpstreamOutcome) {
    super(outcome.kind);
    this.name = 'AttemptFailed';
  }
}

// Network errors that happen before a byte of the request left: the upstream did nothing.
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
// The connection broke after the request was (perhaps) sent.
const CUT = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);

function networkCode(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Node's happy-eyeballs connect reports every address's failure in an AggregateError.
  if (err instanceof AggregateError) return networkCode(err.errors[0]);
  return undefined;
}

/** A failed exchange as an upstream outcome; undefined for an error that is the gateway's own bug. */
function outcomeOfNetworkError(err: unknown): UpstreamOutcome | undefined {
  // Its `code` is llhttp's (HPE_…), and absent for some replies that are not HTTP at all.
  if (err instanceof undiciErrors.HTTPParserError) return { kind: 'badResponse', status: null, reason: 'not valid HTTP' };
  const code = networkCode(err);
  if (code === undefined) return undefined;
  if (TIMEOUTS.has(code)) return { kind: 'timeout' };
  if (NOT_SENT.has(code)) return { kind: 'unavailable', sent: false };
  if (CUT.has(code)) return { kind: 'unavailable', sent: true };
  if (/^E[A-Z]+$/.test(code)) return { kind: 'unavailable', sent: true };
  return undefined;
}

function ignore(): void {}

/**
 * Stops reading a body over the cap (the socket is dropped and the rest never received) and
 * returns the failure to throw. Destroying an unfinished undici body emits an abort error, which
 * is expected here.
 */
function bodyTooLarge(response: Dispatcher.ResponseData, max: number): AttemptFailed {
  response.body.on('error', ignore).destroy();
  return new AttemptFailed({ kind: 'badResponse', status: response.statusCode, reason: `body: over the ${max}-byte limit` });
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function setIfGiven(query: URLSearchParams, name: string, value: string | number | null | undefined): void {
  if (value !== undefined && value !== null) query.set(name, String(value));
}

function appendAll(query: URLSearchParams, name: string, values: readonly string[] | null | undefined): void {
  for (const value of values ?? []) query.append(name, value);
}

function listQuery(q: ListQuery): URLSearchParams {
  const query = new URLSearchParams();
  setIfGiven(query, 'limit', q.limit);
  setIfGiven(query, 'offset', q.offset);
  setIfGiven(query, 'order', q.order);
  return query;
}

export class V1Client {
  readonly #pool: Pool;
  readonly #breaker: CircuitBreaker;
  readonly #budget: RetryBudget;
  readonly #basePath: string;
  readonly #apiKey: string;
  readonly #deadlineMs: number;
  readonly #operationEndsAt: number;
  readonly #maxBodyBytes: number;
  readonly #retries: number;
  readonly #backoff: BackoffOptions;
  readonly #signal: AbortSignal | undefined;
  readonly #onCall: ((call: CallRecord) => void) | undefined;
  readonly #onRetry: ((retry: RetryRecord) => void) | undefined;
  readonly #beforeCall: (() => void) | undefined;
  /** Cancels of the calls in flight: one listener on the request's signal serves them all. */
  readonly #inflight = new Set<() => void>();

  constructor(options: V1ClientOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new Error('The upstream base URL must be http or https');
    }
    // The origin's connections, breaker and retry budget are the process's: looked up once here,
    // not on every call (each lookup parses the URL again).
    this.#pool = options.pool ?? getPool(base);
    this.#breaker = circuitFor(base, options.circuitBreaker);
    this.#budget = retryBudgetFor(base);
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.#operationEndsAt = options.operationTimeoutMs === undefined ? Infinity : performance.now() + options.operationTimeoutMs;
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#retries = Math.max(0, Math.floor(options.retries ?? DEFAULT_RETRIES));
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#signal = options.signal;
    this.#onCall = options.onCall;
    this.#onRetry = options.onRetry;
    this.#beforeCall = options.beforeCall;
    this.#signal?.addEventListener('abort', () => this.#inflight.forEach((cancel) => cancel()), { once: true });
  }

  // --- Security frameworks (operations 1–4) ---------------------------------------------------

  listSecurityFrameworks(organizationId: Id): Promise<WireList<WireSecurityFramework>> {
    return this.#request({
      route: routes.listSecurityFrameworks,
      params: { organizationid: String(organizationId) },
      expect: expectSecurityFrameworkList,
    });
  }

  /** The new framework's id. `organizationId` is sent as the `organization` query (admin keys need it). */
  createSecurityFramework(body: SecurityFrameworkBody, organizationId?: Id | null): Promise<number> {
    const query = new URLSearchParams();
    setIfGiven(query, 'organization', organizationId);
    return this.#request({ route: routes.createSecurityFramework, query, body, expect: expectCreatedId });
  }

  updateSecurityFramework(organizationId: Id, id: Id, body: SecurityFrameworkBody): Promise<WireSecurityFramework> {
    return this.#request({
      route: routes.updateSecurityFramework,
      params: { organizationid: String(organizationId), frameworkid: String(id) },
      body,
      expect: expectSecurityFramework,
    });
  }

  deleteSecurityFramework(organizationId: Id, id: Id): Promise<WireSecurityFramework> {
    return this.#request({
      route: routes.deleteSecurityFramework,
      params: { organizationid: String(organizationId), frameworkid: String(id) },
      expect: expectSecurityFramework,
    });
  }

  // --- Web protection records (operations 5–6) ------------------------------------------------

  updateWebProtectionRecord(id: Id, body: WebProtectionRecordPatch): Promise<WireWebProtectionRecord> {
    return this.#request({
      route: routes.updateWebProtectionRecord,
      params: { id: String(id) },
      body,
      expect: expectWebProtectionRecord,
    });
  }

  deleteWebProtectionRecord(id: Id): Promise<WireWebProtectionRecord> {
    return this.#request({
      route: routes.deleteWebProtectionRecord,
      params: { id: String(id) },
      expect: expectWebProtectionRecord,
    });
  }

  // --- Protection devices and traffic (operations 7–8) ----------------------------------------

  listProtectionDevices(q: ProtectionDeviceQuery = {}): Promise<WireList<WireProtectionDevice>> {
    const query = listQuery(q);
    setIfGiven(query, 'organization', q.organization);
    appendAll(query, 'services', q.services);
    return this.#request({ route: routes.listProtectionDevices, query, expect: expectProtectionDeviceList });
  }

  listTraffic(deviceId: Id, q: TrafficQuery = {}): Promise<WireList<WireTrafficLogEntry>> {
    const query = listQuery(q);
    appendAll(query, 'actions[]', q.actions);
    setIfGiven(query, 'search', q.search);
    return this.#request({
      route: routes.listTraffic,
      params: { id: String(deviceId) },
      query,
      expect: expectTrafficList,
    });
  }

  // --- Readiness --------------------------------------------------------------------------------

  /**
   * Whether the upstream answers with its v1 envelope at all (for `/readyz`): one GET of a
   * one-device page under this client's deadline and body cap, not retried, not counted by the
   * breaker. It needs no key: a 401's envelope says the service is up as well as a page would.
   */
  async answers(): Promise<boolean> {
    const call = { route: routes.listProtectionDevices, query: listQuery({ limit: 1 }), expect: expectProtectionDeviceList };
    try {
      const response = await this.#exchange(call, { status: null }, this.#deadline());
      return Number.isSafeInteger(parseJsonObject(response.text)?.error);
    } catch (error) {
      if (error instanceof AttemptFailed || isCancelled(error)) return false;
      throw error;
    }
  }

  // --- The one way out ------------------------------------------------------------------------

  /**
   * One logical call: up to 1 + `retries` attempts for a GET (mutations get exactly one), each
   * let through by the upstream's circuit breaker, all of them within the call's deadline and the
   * operation's. The error of the last attempt is the call's.
   */
  async #request<T>(call: Call<T>): Promise<T> {
    const { method } = call.route;
    if (this.#signal?.aborted) throw new RequestCancelledError();
    if (this.#apiKey === '') throw unauthenticated();
    if (!/^[\x21-\x7e]+$/.test(this.#apiKey)) throw unauthenticated('The API key is empty or has characters a header cannot carry');
    this.#beforeCall?.();

    const deadline = this.#deadline();
    // Past the operation's deadline nothing is sent: the field fails, the rest of the answer goes.
    if (deadline.at - performance.now() < MIN_ATTEMPT_MS) throw upstreamError({ kind: 'timeout', sent: false }, method);
    const breaker = this.#breaker;
    const budget = this.#budget;
    budget.deposit();

    let last: UpstreamError | undefined;
    for (let attempt = 1; ; attempt++) {
      const permit = breaker.acquire();
      if (permit === null) throw last ?? upstreamError({ kind: 'circuitOpen' }, method);
      const result = await this.#attempt(call, attempt, deadline, permit);
      if (result.ok) return result.value;
      last = result.error;
      const delay = this.#retryDelay(call, attempt, result.outcome, deadline);
      if (delay === undefined || breaker.state === 'open' || !budget.tryWithdraw()) throw last;
      this.#report(this.#onRetry, {
        route: routeName(call.route),
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
  #retryDelay(call: Call<unknown>, attempt: number, outcome: UpstreamOutcome, deadline: Deadline): number | undefined {
    if (call.route.method !== 'GET' || attempt > this.#retries || !isRetryable(outcome)) return undefined;
    const hinted = outcome.kind === 'status' ? retryAfterMs(outcome.retryAfter) : undefined;
    const delay = Math.max(hinted ?? 0, backoffMs(attempt, this.#backoff));
    // A Retry-After past the deadline: the caller learns it at once (RATE_LIMITED with retryAfter).
    return delay + MIN_ATTEMPT_MS <= deadline.at - performance.now() ? delay : undefined;
  }

  /** The end of a call starting now: its own deadline, or the operation's when that comes first. */
  #deadline(): Deadline {
    const own = performance.now() + this.#deadlineMs;
    return own <= this.#operationEndsAt ? { at: own, by: 'call' } : { at: this.#operationEndsAt, by: 'operation' };
  }

  /** One attempt, reported to `onCall` and to the breaker. Throws only a cancellation or a bug. */
  async #attempt<T>(call: Call<T>, attempt: number, deadline: Deadline, permit: CircuitPermit): Promise<Attempt<T>> {
    const { method } = call.route;
    const started = performance.now();
    const seen: { status: number | null } = { status: null };
    let outcome: CallOutcome = 'ok';
    let health: 'success' | 'failure' | 'release' = 'release';
    try {
      const response = await this.#exchange(call, seen, deadline);
      const value = this.#interpret(call, response);
      health = 'success';
      return { ok: true, value };
    } catch (err) {
      if (err instanceof AttemptFailed) {
        const error = upstreamError(err.outcome, method);
        outcome = error.code;
        // Running out of the operation's time says nothing of the upstream's health.
        const available = !isAvailabilityFailure(err.outcome);
        health = available ? 'success' : err.outcome.kind === 'timeout' && deadline.by === 'operation' ? 'release' : 'failure';
        return { ok: false, outcome: err.outcome, error };
      }
      outcome = isCancelled(err) ? 'CANCELLED' : ErrorCode.INTERNAL_SERVER_ERROR;
      throw err;
    } finally {
      permit[health]();
      this.#report(this.#onCall, {
        route: routeName(call.route),
        method,
        status: seen.status,
        durationMs: performance.now() - started,
        outcome,
        attempt,
      });
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
      if (this.#signal?.aborted) cancel();
    });
  }

  /**
   * One HTTP exchange until the deadline, under the request's signal; the body read under the cap.
   * `seen.status` is set as soon as a status line arrives, even if the body then fails.
   */
  async #exchange(call: Call<unknown>, seen: { status: number | null }, deadline: Deadline): Promise<RawResponse> {
    const { method } = call.route;
    if (this.#signal?.aborted) throw new RequestCancelledError();

    const search = call.query?.toString();
    const path = `${this.#basePath}${fillPath(call.route, call.params)}${search ? `?${search}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    // Only the readiness probe gets here without a key (calls refuse that before): no empty header.
    if (this.#apiKey !== '') headers['x-service-token'] = this.#apiKey;
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }

    // undici takes an EventEmitter as the signal of a request ('abort' aborts it): made for every
    // call, it costs a small part of what an AbortController does (about 3 µs each, measured).
    const abort = new EventEmitter();
    let ended: 'deadline' | 'cancelled' | undefined;
    const timer = setTimeout(
      () => {
        ended ??= 'deadline';
        abort.emit('abort');
      },
      Math.max(0, deadline.at - performance.now()),
    );
    const cancel = () => {
      ended ??= 'cancelled';
      abort.emit('abort');
    };
    this.#inflight.add(cancel);

    try {
      const response = await this.#pool.request({ path, method, headers, body, signal: abort });
      seen.status = response.statusCode;
      const text = await this.#readCapped(response);
      return { status: response.statusCode, headers: response.headers, text };
    } catch (err) {
      if (ended === 'cancelled') throw new RequestCancelledError();
      if (ended === 'deadline') throw new AttemptFailed({ kind: 'timeout' });
      if (err instanceof AttemptFailed) throw err;
      const outcome = outcomeOfNetworkError(err);
      if (outcome === undefined) throw err;
      throw new AttemptFailed(outcome.kind === 'badResponse' ? { ...outcome, status: seen.status } : outcome);
    } finally {
      clearTimeout(timer);
      this.#inflight.delete(cancel);
    }
  }

  async #readCapped(response: Dispatcher.ResponseData): Promise<string> {
    const max = this.#maxBodyBytes;
    const declared = Number(firstHeader(response.headers['content-length']));
    if (declared > max) throw bodyTooLarge(response, max);
    // A declared length within the cap bounds the body: undici ends it there (more bytes would be
    // a protocol error on the connection, fewer a failed read). Read whole, it costs less than
    // iterating its chunks; only a body of unknown length (chunked) is counted as it comes.
    if (Number.isSafeInteger(declared) && declared >= 0) return response.body.text();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) throw bodyTooLarge(response, max);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size).toString('utf8');
  }

  /** The response as the operation's result, or the outcome that fails the attempt. */
  #interpret<T>(call: Call<T>, response: RawResponse): T {
    const { status } = response;
    const body = parseJsonObject(response.text);
    const success = status >= 200 && status < 300;
    if (!success) {
      throw new AttemptFailed({
        kind: 'status',
        status,
        detail: this.#redact(upstreamDetail(status, body)),
        retryAfter: firstHeader(response.headers['retry-after']),
      });
    }
    if (body === undefined) throw new AttemptFailed({ kind: 'badResponse', status, reason: 'body: expected a JSON object' });
    try {
      checkEnvelope(body);
      if (body.error !== 0) throw new AttemptFailed({ kind: 'status', status, detail: this.#redact(upstreamDetail(status, body)) });
      return call.expect(body);
    } catch (err) {
      if (err instanceof ContractViolation) throw new AttemptFailed({ kind: 'badResponse', status, reason: err.reason });
      throw err;
    }
  }

  /** The upstream must never echo the key; should one do so, its words reach no client with it. */
  #redact(detail: UpstreamDetail): UpstreamDetail {
    const key = this.#apiKey;
    const scrub = (text: string) => text.split(key).join('[redacted]');
    return {
      ...detail,
      messages: detail.messages.map((m) => ({
        code: scrub(m.code),
        message: scrub(m.message),
        ...(m.field === undefined ? {} : { field: scrub(m.field) }),
      })),
    };
  }
}
