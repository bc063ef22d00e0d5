// The types of an upstream call: what a caller (a GraphQL request, a tail's poller, an export)
// brings to its calls, what it learns of each attempt, what the client needs of its transport, and
// the hook a response cache plugs in through. Apart from the client, so that what observes calls
// (metrics, tracing, the response cache) can name them without depending on the client itself.
import type { Pool } from 'undici';
import type { ErrorCode } from '../errors.ts';
import type { CircuitBreaker } from './circuit-breaker.ts';
import type { BackoffOptions, RetryBudget } from './retry.ts';
import type { NetworkCause } from './outcome.ts';
import type { HttpMethod, Route } from './routes.ts';

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
  /** A response cache, when one is on: the reads it has a rule for are read from it and kept in it. */
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
  /**
   * Asks the upstream itself, never a cached answer (fresh or stale): for a read that authorizes
   * something lasting (a download link), which must hold now, not a minute ago.
   */
  live?: boolean;
}

/** What one call is to a response cache: a read kept under these tags, or a mutation that invalidates them. */
export type CacheUse = { readonly read: readonly string[] } | { readonly invalidates: readonly string[] };

/** An answer a cache kept: the body's text as the upstream sent it, and how old it is. */
export interface KeptAnswer {
  text: string;
  ageMs: number;
}

/**
 * A response cache as one caller's client uses it, already bound to what separates callers (the
 * key): declared here, implemented by the cache (response-cache/), so that the transport knows no
 * cache and no route's rule. The client asks `use` first; for a read it then looks up, keeps, or
 * falls back on a stale answer, and for a mutation it invalidates once the call is over.
 */
export interface CallerCache {
  /** What this call is to the cache; undefined when the cache has nothing to do with it. */
  use(route: Route<unknown>, input: CallInput): CacheUse | undefined;
  /** A fresh answer, or the stamp to keep the call's answer with (what invalidations it must not have missed). */
  lookup(path: string, tags: readonly string[]): Promise<{ fresh: KeptAnswer } | { stamp: unknown }>;
  /** Keeps the call's answer, unless one of its tags was invalidated since `lookup` gave `stamp`. Never fails. */
  keep(path: string, text: string, tags: readonly string[], stamp: unknown): Promise<void>;
  /** An answer kept from before that may stand in for a failed call; never an invalidated one. */
  stale(path: string, tags: readonly string[]): Promise<KeptAnswer | undefined>;
  /** The client hands out `value`, built from a stale answer `ageMs` old: the cache may mark it as such. */
  servedStale(value: unknown, ageMs: number): void;
  /** Answers with one of these tags stop being served, for every caller. */
  invalidate(tags: readonly string[]): Promise<void>;
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
