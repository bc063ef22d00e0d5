// The types of an upstream call: what a caller (a GraphQL request, a tail's poller, an export)
// brings to its calls, what it learns of each attempt, and what the client needs of its transport.
// Apart from the client, so that what observes calls (metrics, tracing, the response cache) can
// name them without depending on the client itself.
import type { Pool } from 'undici';
import type { ErrorCode } from '../errors.ts';
import type { StaleReads } from '../response-cache/stale.ts';
import type { ResponseCacheStore } from '../response-cache/store.ts';
import type { CircuitBreaker } from './circuit-breaker.ts';
import type { BackoffOptions, RetryBudget } from './retry.ts';
import type { NetworkCause } from './outcome.ts';
import type { HttpMethod } from './routes.ts';

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
  /** Why it failed, when the network or the clock failed it: the operator's word for the log. */
  cause?: NetworkCause | 'timeout';
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

/** What one caller (a GraphQL request) brings to its calls. */
export interface CallerOptions {
  /** Sent as `X-Service-Token`; never logged, never in an error, never in `onCall`. */
  apiKey: string;
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
  /** This caller's own deadline per call, body cap or retries, instead of the transport's. */
  deadlineMs?: number;
  maxBodyBytes?: number;
  retries?: number;
  /** The gateway's response cache, when on (RESPONSE_CACHE_TTL_S): GETs are read from it and kept in it. */
  cache?: CallerCache;
  /** The operation's span, when tracing is on: each attempt gets a child span and sends its `traceparent`. */
  trace?: UpstreamTracer;
}

/** What a client needs of the transport its gateway owns (transport.ts). */
export interface TransportState {
  readonly pool: Pool;
  readonly breaker: CircuitBreaker;
  readonly budget: RetryBudget;
  readonly basePath: string;
  readonly defaults: { deadlineMs: number; maxBodyBytes: number; retries: number; backoff: BackoffOptions };
}

/** One call's filled route: path parameters, query and JSON body. */
export interface CallInput {
  params?: Record<string, string>;
  query?: URLSearchParams;
  body?: unknown;
}

/** The response cache as one caller uses it: its key's partition, and its request's stale record. */
export interface CallerCache {
  store: ResponseCacheStore;
  /** The key's hash: answers are never shared across keys. */
  partition: string;
  stale: StaleReads;
}

/** One upstream attempt's span: the headers that name it to the upstream, then how it ended. */
export interface AttemptTrace {
  /** `traceparent` (and `tracestate`) naming this attempt's span, for the upstream request. */
  readonly headers: Readonly<Record<string, string>>;
  end(record: CallRecord): void;
}

/** What tracing gives a caller: a span per attempt, child of the operation's. */
export interface UpstreamTracer {
  attempt(route: { name: string; template: string; method: string }, attempt: number): AttemptTrace;
}
