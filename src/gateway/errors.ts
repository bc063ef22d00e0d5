// The gateway's error codes (graphql.md, "Errors") and the error classes that carry them. Upstream
// outcomes become these in upstream/outcome.ts; format-error.ts is the last gate before a client.
import { GraphQLError, type GraphQLErrorExtensions, type GraphQLFormattedError } from 'graphql';

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
  /** A traffic tail missed more entries than it can replay: the client pages the log instead. */
  TAIL_GAP: 'TAIL_GAP',
  /** A connection holds TAIL_MAX_SUBSCRIPTIONS_PER_CONNECTION subscriptions already. */
  TOO_MANY_SUBSCRIPTIONS: 'TOO_MANY_SUBSCRIPTIONS',
  /** The upstream lacks an operation the field needs (a v1 deployment without the reference service's extensions). */
  NOT_SUPPORTED: 'NOT_SUPPORTED',
  /** The identity provider could not be reached to check a token (HTTP 503). */
  IDENTITY_PROVIDER_UNAVAILABLE: 'IDENTITY_PROVIDER_UNAVAILABLE',
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
  /** FORBIDDEN by `@requiresScopes`: the scope sets of which the token needs one (any of, each all of). */
  requiredScopes?: string[][];
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
export function isGraphQLError(err: unknown): err is GraphQLError {
  return Object.prototype.toString.call(err) === '[object GraphQLError]';
}

/** The error a resolver threw, out of graphql-js's located wrapper (as Apollo's unwrapResolverError). */
export function unwrapResolverError(err: unknown): unknown {
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

/** The message of each code when nothing more precise is known. */
export const defaultMessage: Readonly<Record<ErrorCode, string>> = {
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
  TAIL_GAP: 'More entries were missed than can be replayed; read them with trafficLog',
  TOO_MANY_SUBSCRIPTIONS: 'This connection holds as many subscriptions as it may',
  NOT_SUPPORTED: 'The upstream service does not offer what this field needs',
  IDENTITY_PROVIDER_UNAVAILABLE: 'The identity provider cannot be reached to check the token',
  INTERNAL_SERVER_ERROR: 'Internal server error',
};
