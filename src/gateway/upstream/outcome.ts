// How an upstream call can end short of a usable success, and the one mapping from that outcome
// to the contract's error codes (graphql.md, "Errors"): statuses to codes, the upstream's messages
// normalised, the key redacted from them, and `Retry-After` read in one place.
import { ErrorCode, UpstreamError, defaultMessage, type UpstreamDetail, type UpstreamMessage } from '../errors.ts';
import { inGraphQLWords, type FieldNames } from './field-names.ts';

/** Why the network failed a call, as an operator's log line says it. */
export type NetworkCause =
  | 'connection refused'
  | 'name not resolved'
  | 'host unreachable'
  | 'connect timeout'
  | 'TLS'
  | 'connection reset'
  | 'connection closed';

/** How an upstream call ended, when it did not end in a usable success. */
export type UpstreamOutcome =
  /** A response with a status that is not a success, or a 2xx whose envelope says `error` != 0. */
  | { kind: 'status'; status: number; detail: UpstreamDetail; retryAfter?: string | undefined }
  /**
   * No complete answer within the deadline. `sent: false` when the deadline had passed before the
   * call could start, so nothing was sent (a mutation is then known not to have happened).
   */
  | { kind: 'timeout'; sent?: boolean }
  /**
   * Connection refused (`sent: false`), or reset / closed early (`sent: true`). `cause` says why
   * in an operator's words (for logs only: a client learns the code, not the network's details).
   */
  | { kind: 'unavailable'; sent: boolean; cause?: NetworkCause }
  /** Not JSON, over the size cap, or JSON that breaks the contract; `reason` names where, never a value. */
  | { kind: 'badResponse'; status: number | null; reason: string }
  /** Not sent: the upstream's circuit breaker is open after a run of failures. */
  | { kind: 'circuitOpen' };

function codeForStatus(status: number): ErrorCode {
  if (status === 401) return ErrorCode.UNAUTHENTICATED;
  if (status === 403) return ErrorCode.FORBIDDEN;
  if (status === 404) return ErrorCode.NOT_FOUND;
  // 414 and 431: the request's URL or headers were too long for the upstream, which the client's
  // input made so (a long filter): its mistake to correct, not the upstream's failure.
  if (status === 400 || status === 422 || status === 414 || status === 431) return ErrorCode.BAD_USER_INPUT;
  if (status === 429) return ErrorCode.RATE_LIMITED;
  if (status >= 500) return ErrorCode.UPSTREAM_UNAVAILABLE;
  // 2xx with error != 0, and any other 4xx
  if (status >= 400 || (status >= 200 && status < 300)) return ErrorCode.UPSTREAM_ERROR;
  return ErrorCode.UPSTREAM_BAD_RESPONSE; // 1xx/3xx: nothing in the contract answers so
}

/**
 * Codes whose message carries the upstream's first message (it describes the caller's request),
 * after a short lead that names the code's meaning without saying again what the upstream says.
 */
const LEAD: Partial<Record<ErrorCode, string>> = {
  [ErrorCode.UNAUTHENTICATED]: defaultMessage.UNAUTHENTICATED,
  [ErrorCode.FORBIDDEN]: 'Forbidden',
  [ErrorCode.NOT_FOUND]: 'Not found',
  [ErrorCode.BAD_USER_INPUT]: 'Invalid input',
  [ErrorCode.UPSTREAM_ERROR]: defaultMessage.UPSTREAM_ERROR,
};

/**
 * The single mapping from an upstream outcome to a GraphQL error (graphql.md, "Errors").
 * `method` is the HTTP method of the call: a non-GET call that timed out or was cut after sending
 * gets `outcome: 'UNKNOWN'`, since its change may or may not have happened.
 */
export function upstreamError(outcome: UpstreamOutcome, method: string, fields?: FieldNames): UpstreamError {
  const mutation = method.toUpperCase() !== 'GET';
  switch (outcome.kind) {
    case 'timeout':
      return new UpstreamError(defaultMessage.UPSTREAM_TIMEOUT, {
        code: ErrorCode.UPSTREAM_TIMEOUT,
        ...(mutation && outcome.sent !== false ? { outcome: 'UNKNOWN' as const } : {}),
      });
    case 'circuitOpen':
      return new UpstreamError(`${defaultMessage.UPSTREAM_UNAVAILABLE}: after repeated failures, calls to it are paused for a few seconds`, {
        code: ErrorCode.UPSTREAM_UNAVAILABLE,
      });
    case 'unavailable':
      return new UpstreamError(defaultMessage.UPSTREAM_UNAVAILABLE, {
        code: ErrorCode.UPSTREAM_UNAVAILABLE,
        ...(mutation && outcome.sent ? { outcome: 'UNKNOWN' as const } : {}),
      });
    case 'badResponse':
      return new UpstreamError(`${defaultMessage.UPSTREAM_BAD_RESPONSE}: ${outcome.reason}`, {
        code: ErrorCode.UPSTREAM_BAD_RESPONSE,
        ...(outcome.status === null ? {} : { upstream: { status: outcome.status, error: null, messages: [] } }),
      });
    case 'status': {
      const code = codeForStatus(outcome.status);
      const { messages } = outcome.detail;
      const first = messages[0];
      const lead = LEAD[code];
      // The input at fault in the client's words (`input.controls[2].weight`, `filter.search`).
      const field = first?.field === undefined ? undefined : fields?.(first.field);
      let message = defaultMessage[code];
      if (lead !== undefined && first?.message) {
        const more = code === ErrorCode.BAD_USER_INPUT && messages.length > 1 ? ` (and ${messages.length - 1} more in extensions.problems)` : '';
        message = `${lead}: ${inGraphQLWords(first.message, first.field, field)}${more}`;
      }
      // When v1 found several problems with an input, each in the client's words, the first included.
      const problems = code === ErrorCode.BAD_USER_INPUT && messages.length > 1 ? messages.map((problem) => inClientWords(problem, fields)) : undefined;
      const retryAfter = code === ErrorCode.RATE_LIMITED ? parseRetryAfter(outcome.retryAfter) : undefined;
      return new UpstreamError(message, {
        code,
        upstream: outcome.detail,
        ...(field === undefined || code !== ErrorCode.BAD_USER_INPUT ? {} : { field }),
        ...(problems === undefined ? {} : { problems }),
        ...(retryAfter === undefined ? {} : { retryAfter }),
      });
    }
  }
}

/** One of v1's messages about an input, with the field it names as the client wrote it (when known). */
function inClientWords(problem: UpstreamMessage, fields: FieldNames | undefined): { field?: string; message: string } {
  const field = problem.field === undefined ? undefined : fields?.(problem.field);
  return { ...(field === undefined ? {} : { field }), message: inGraphQLWords(problem.message, problem.field, field) };
}

/** `Retry-After` (delta-seconds or an HTTP date, RFC 9110 §10.2.3) as milliseconds from now. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** `Retry-After` as whole seconds from now, as `extensions.retryAfter` gives it. */
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

/** The upstream must never echo the key; should one do so, its words reach no client with it. */
export function redactKey(detail: UpstreamDetail, key: string): UpstreamDetail {
  if (key === '') return detail;
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
