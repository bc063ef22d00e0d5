// Every GraphQL error of the gateway is made here (graphql.md, "Errors"), and `formatError` is the
// last gate before a client: anything that does not carry one of these codes is masked.
import { GraphQLError, type GraphQLErrorExtensions, type GraphQLFormattedError } from 'graphql';
import { retryAfterMs } from './upstream/retry.ts';

export const ErrorCode = {
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  RATE_LIMITED: 'RATE_LIMITED',
  UPSTREAM_ERROR: 'UPSTREAM_ERROR',
  UPSTREAM_UNAVAILABLE: 'UPSTREAM_UNAVAILABLE',
  UPSTREAM_TIMEOUT: 'UPSTREAM_TIMEOUT',
  UPSTREAM_BAD_RESPONSE: 'UPSTREAM_BAD_RESPONSE',
  /** The operation's estimated cost is over MAX_COST (HTTP 400, nothing executed). */
  QUERY_TOO_COMPLEX: 'QUERY_TOO_COMPLEX',
  /** A field past the operation's budget of upstream calls (MAX_UPSTREAM_CALLS). */
  UPSTREAM_BUDGET_EXCEEDED: 'UPSTREAM_BUDGET_EXCEEDED',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** One upstream message as the gateway passes it on. */
export interface UpstreamMessage {
  code: string;
  message: string;
  field?: string;
}

/** What `extensions.upstream` may say of the upstream: its words, never its address, headers or body. */
export interface UpstreamDetail {
  status: number;
  /** The envelope's `error`; null when the body was not an envelope (e.g. a proxy's HTML 502). */
  error: number | null;
  messages: UpstreamMessage[];
}

export interface GatewayErrorExtensions extends GraphQLErrorExtensions {
  code: ErrorCode;
  upstream?: UpstreamDetail;
  /** Seconds, from the upstream's `Retry-After` (RATE_LIMITED only). */
  retryAfter?: number;
  /** A mutation whose effect upstream cannot be known (timeout, or reset after sending). */
  outcome?: 'UNKNOWN';
  /** The argument at fault, for the gateway's own BAD_USER_INPUT (e.g. `first`, `after`). */
  field?: string;
}

/** A GraphQL error of the gateway: a known code, and extensions typed as the contract says. */
export class GatewayError extends GraphQLError {
  declare readonly extensions: GatewayErrorExtensions;

  constructor(message: string, extensions: GatewayErrorExtensions) {
    // No originalError: a network error's message names the upstream address, and Apollo would
    // copy its stack into `extensions.stacktrace`.
    super(message, { extensions: { ...extensions } });
    this.name = 'GatewayError';
  }

  get code(): ErrorCode {
    return this.extensions.code;
  }
}

/** An error that came from (or because of) the upstream. */
export class UpstreamError extends GatewayError {
  constructor(message: string, extensions: GatewayErrorExtensions) {
    super(message, extensions);
    this.name = 'UpstreamError';
  }
}

/**
 * The request that an upstream call served went away (client disconnect, or the caller's signal).
 * Deliberately not a GraphQLError: nobody is left to read it, and it is not a fault of the upstream.
 * `formatError` masks it without reporting it as a bug.
 */
export class RequestCancelledError extends Error {
  constructor() {
    super('The request was cancelled');
    this.name = 'RequestCancelledError';
  }
}

export function isCancelled(err: unknown): err is RequestCancelledError {
  return err instanceof RequestCancelledError;
}

/**
 * A GraphQLError of any copy of graphql-js. Under vitest the app's code gets graphql's ESM build
 * while externalised packages (Apollo Server) get its CommonJS build, so `instanceof` cannot tell;
 * the class's own tag can.
 */
function isGraphQLError(err: unknown): err is GraphQLError {
  return Object.prototype.toString.call(err) === '[object GraphQLError]';
}

/** The error a resolver threw, out of graphql-js's located wrapper (as Apollo's unwrapResolverError). */
function unwrapResolverError(err: unknown): unknown {
  return isGraphQLError(err) && err.path && err.originalError ? err.originalError : err;
}

/** A lookup turns this into null (graphql.md: "a lookup query returns null instead"). */
export function isNotFound(err: unknown): boolean {
  const original = unwrapResolverError(err);
  return original instanceof GatewayError && original.code === ErrorCode.NOT_FOUND;
}

export function gatewayError(code: ErrorCode, message: string): GatewayError {
  return new GatewayError(message, { code });
}

/** The gateway's own input errors (arguments, cursors). `field` names the argument at fault. */
export function badUserInput(message: string, field?: string): GatewayError {
  return new GatewayError(message, { code: ErrorCode.BAD_USER_INPUT, ...(field === undefined ? {} : { field }) });
}

export function unauthenticated(message = 'An API key is required: send it as X-Service-Token or Authorization: Bearer'): GatewayError {
  return new GatewayError(message, { code: ErrorCode.UNAUTHENTICATED });
}

// ---------------------------------------------------------------------------------------------
// Upstream outcome → error, in one function.

/** How an upstream call ended, when it did not end in a usable success. */
export type UpstreamOutcome =
  /** A response with a status that is not a success, or a 2xx whose envelope says `error` != 0. */
  | { kind: 'status'; status: number; detail: UpstreamDetail; retryAfter?: string | undefined }
  /**
   * No complete answer within the deadline. `sent: false` when the deadline had passed before the
   * call could start, so nothing was sent (a mutation is then known not to have happened).
   */
  | { kind: 'timeout'; sent?: boolean }
  /** Connection refused (`sent: false`), or reset / closed early (`sent: true`). */
  | { kind: 'unavailable'; sent: boolean }
  /** Not JSON, over the size cap, or JSON that breaks the contract; `reason` names where, never a value. */
  | { kind: 'badResponse'; status: number | null; reason: string }
  /** Not sent: the upstream's circuit breaker is open after a run of failures. */
  | { kind: 'circuitOpen' };

const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  UNAUTHENTICATED: 'The upstream service did not accept the API key',
  FORBIDDEN: 'The API key may not act on this organization',
  NOT_FOUND: 'Not found',
  BAD_USER_INPUT: 'The upstream service rejected the input',
  RATE_LIMITED: 'Too many requests to the upstream service; retry later',
  UPSTREAM_ERROR: 'The upstream service reported an error',
  UPSTREAM_UNAVAILABLE: 'The upstream service is unavailable',
  UPSTREAM_TIMEOUT: 'The upstream service did not answer in time',
  UPSTREAM_BAD_RESPONSE: 'The upstream service sent a response that breaks the v1 contract',
  QUERY_TOO_COMPLEX: 'The operation asks for too much at once',
  UPSTREAM_BUDGET_EXCEEDED: 'The operation needs too many upstream calls',
  INTERNAL_SERVER_ERROR: 'Internal server error',
};

function codeForStatus(status: number): ErrorCode {
  if (status === 401) return ErrorCode.UNAUTHENTICATED;
  if (status === 403) return ErrorCode.FORBIDDEN;
  if (status === 404) return ErrorCode.NOT_FOUND;
  if (status === 400 || status === 422) return ErrorCode.BAD_USER_INPUT;
  if (status === 429) return ErrorCode.RATE_LIMITED;
  if (status >= 500) return ErrorCode.UPSTREAM_UNAVAILABLE;
  // 2xx with error != 0, and any other 4xx
  if (status >= 400 || (status >= 200 && status < 300)) return ErrorCode.UPSTREAM_ERROR;
  return ErrorCode.UPSTREAM_BAD_RESPONSE; // 1xx/3xx: nothing in the contract answers so
}

/** Codes whose message may repeat the upstream's first message: it describes the caller's request. */
const ECHOES_UPSTREAM_MESSAGE = new Set<ErrorCode>([
  ErrorCode.UNAUTHENTICATED,
  ErrorCode.FORBIDDEN,
  ErrorCode.NOT_FOUND,
  ErrorCode.BAD_USER_INPUT,
  ErrorCode.UPSTREAM_ERROR,
]);

/**
 * The single mapping from an upstream outcome to a GraphQL error (graphql.md, "Errors").
 * `method` is the HTTP method of the call: a non-GET call that timed out or was cut after sending
 * gets `outcome: 'UNKNOWN'`, since its change may or may not have happened.
 */
export function upstreamError(outcome: UpstreamOutcome, method: string): UpstreamError {
  const mutation = method.toUpperCase() !== 'GET';
  switch (outcome.kind) {
    case 'timeout':
      return new UpstreamError(DEFAULT_MESSAGES.UPSTREAM_TIMEOUT, {
        code: ErrorCode.UPSTREAM_TIMEOUT,
        ...(mutation && outcome.sent !== false ? { outcome: 'UNKNOWN' as const } : {}),
      });
    case 'circuitOpen':
      return new UpstreamError(`${DEFAULT_MESSAGES.UPSTREAM_UNAVAILABLE}: after repeated failures, calls to it are paused for a few seconds`, {
        code: ErrorCode.UPSTREAM_UNAVAILABLE,
      });
    case 'unavailable':
      return new UpstreamError(DEFAULT_MESSAGES.UPSTREAM_UNAVAILABLE, {
        code: ErrorCode.UPSTREAM_UNAVAILABLE,
        ...(mutation && outcome.sent ? { outcome: 'UNKNOWN' as const } : {}),
      });
    case 'badResponse':
      return new UpstreamError(`${DEFAULT_MESSAGES.UPSTREAM_BAD_RESPONSE}: ${outcome.reason}`, {
        code: ErrorCode.UPSTREAM_BAD_RESPONSE,
        ...(outcome.status === null ? {} : { upstream: { status: outcome.status, error: null, messages: [] } }),
      });
    case 'status': {
      const code = codeForStatus(outcome.status);
      const first = outcome.detail.messages[0]?.message;
      const base = DEFAULT_MESSAGES[code];
      const message = first && ECHOES_UPSTREAM_MESSAGE.has(code) ? `${base}: ${first}` : base;
      const retryAfter = code === ErrorCode.RATE_LIMITED ? parseRetryAfter(outcome.retryAfter) : undefined;
      return new UpstreamError(message, {
        code,
        upstream: outcome.detail,
        ...(retryAfter === undefined ? {} : { retryAfter }),
      });
    }
  }
}

/** `Retry-After` as whole seconds from now: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  const ms = retryAfterMs(value, now);
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

// Bounds on what an upstream may put into our errors: its words pass through, at a sane size.
const MAX_MESSAGES = 20;
const MAX_TEXT = 500;
/** The `code` given to a `messages` item that is a plain string (the contract allows those). */
export const UNSPECIFIED_MESSAGE_CODE = 'unspecified';

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

/**
 * The envelope's `messages` as `{ code, message, field? }`: a plain string item becomes
 * `{ code: 'unspecified', message: <string> }`; an object keeps its string `code`, `message` and
 * `field` and nothing else; any other item is dropped. At most 20 items of at most 500 characters.
 */
export function normalizeMessages(messages: unknown): UpstreamMessage[] {
  if (!Array.isArray(messages)) return [];
  const out: UpstreamMessage[] = [];
  for (const item of messages) {
    if (out.length >= MAX_MESSAGES) break;
    if (typeof item === 'string') {
      out.push({ code: UNSPECIFIED_MESSAGE_CODE, message: clip(item) });
    } else if (item !== null && typeof item === 'object') {
      const { code, message, field } = item as Record<string, unknown>;
      out.push({
        code: typeof code === 'string' && code !== '' ? clip(code) : UNSPECIFIED_MESSAGE_CODE,
        message: typeof message === 'string' ? clip(message) : '',
        ...(typeof field === 'string' ? { field: clip(field) } : {}),
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// formatError for Apollo Server.

/** Codes Apollo Server itself produces for requests it refuses (parse, validation, variables, …). */
const APOLLO_CODES = new Set<string>([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
  'INTROSPECTION_DISABLED',
  'MAX_RECURSIVE_SELECTIONS_EXCEEDED',
]);
const PUBLIC_CODES = new Set<string>(
  Object.values(ErrorCode).filter((code) => code !== ErrorCode.INTERNAL_SERVER_ERROR),
);

export interface FormatErrorOptions {
  /** Keep Apollo's `extensions.stacktrace` (development only). Default false. */
  includeStacktrace?: boolean;
  /** Called with the original error of every masked error (a gateway bug), for the log. */
  onUnexpectedError?: (error: unknown) => void;
}

export type FormatError = (formattedError: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/**
 * Apollo Server's `formatError`: errors carrying a known code pass (without a stack trace unless
 * asked); anything else is `INTERNAL_SERVER_ERROR` with a generic message, its original reported
 * to `onUnexpectedError`. A gateway code only counts on a GatewayError (made in this file), an
 * Apollo code on a GraphQLError: a stray object with an `extensions` field cannot pass.
 */
export function createFormatError(options: FormatErrorOptions = {}): FormatError {
  return (formattedError, error) => {
    const original = unwrapResolverError(error);
    const code = formattedError.extensions?.code;
    const known =
      typeof code === 'string' &&
      ((original instanceof GatewayError && PUBLIC_CODES.has(code)) || (isGraphQLError(original) && APOLLO_CODES.has(code)));
    const { stacktrace, ...extensions } = formattedError.extensions ?? {};
    const keepStack = options.includeStacktrace && stacktrace !== undefined ? { stacktrace } : {};
    if (known) return { ...formattedError, extensions: { ...extensions, ...keepStack } };
    if (!isCancelled(original)) options.onUnexpectedError?.(original);
    return {
      message: DEFAULT_MESSAGES.INTERNAL_SERVER_ERROR,
      ...(formattedError.locations ? { locations: formattedError.locations } : {}),
      ...(formattedError.path ? { path: formattedError.path } : {}),
      extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR, ...keepStack },
    };
  };
}
