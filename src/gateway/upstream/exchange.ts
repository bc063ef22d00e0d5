// One HTTP exchange with the upstream: the request sent on the gateway's pool under a deadline and
// the caller's cancellation, the body read under a size cap, and every network failure classified
// as an upstream outcome. Retries, the breaker and the meaning of the answer are the client's.
import { EventEmitter } from 'node:events';
import type { Dispatcher, Pool } from 'undici';
import { errors as undiciErrors } from './undici-parts.ts';
import { RequestCancelledError } from '../errors.ts';
import type { NetworkCause, UpstreamOutcome } from './outcome.ts';
import type { TextHolder } from '../request-trees.ts';

/** An attempt ended in an upstream outcome; the client decides what becomes of it. */
export class AttemptFailed extends Error {
  constructor(readonly outcome: UpstreamOutcome) {
    super(outcome.kind);
    this.name = 'AttemptFailed';
  }
}

/** A response as read; its text is taken out by the one who parses it. */
export interface RawResponse extends TextHolder {
  status: number;
  headers: Dispatcher.ResponseData['headers'];
}

export interface ExchangeRequest {
  pool: Pool;
  method: string;
  path: string;
  /** Sent as `X-Service-Token` when not empty. */
  apiKey: string;
  body?: unknown;
  /** `performance.now()` time by which the whole exchange must be over. */
  deadlineAt: number;
  maxBodyBytes: number;
  /** Registers a cancel function while the exchange runs (the request's signal calls it). */
  track: (cancel: () => void) => () => void;
  /** Set as soon as a status line arrives, even if the body then fails. */
  seen: { status: number | null };
  /** More request headers: the attempt's `traceparent` when tracing is on. */
  extraHeaders?: Readonly<Record<string, string>>;
}

// Network errors that happen before a byte of the request left: the upstream did nothing.
const NOT_SENT: Readonly<Record<string, NetworkCause>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'name not resolved',
  EAI_AGAIN: 'name not resolved',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
  EADDRNOTAVAIL: 'host unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_DESTROYED: 'connection closed',
};
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
// The connection broke after the request was (perhaps) sent.
const CUT = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);
// TLS: the handshake failed (a certificate not trusted, expired, for another name; a protocol
// mismatch), before the request was sent. Node names these by OpenSSL's words, not E-codes.
const TLS = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH)/;

function networkCode(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Node's happy-eyeballs connect reports every address's failure in an AggregateError.
  if (err instanceof AggregateError) return networkCode(err.errors[0]);
  return undefined;
}

/** A failed exchange as an upstream outcome; undefined for an error that is the gateway's own bug. */
export function outcomeOfNetworkError(err: unknown): UpstreamOutcome | undefined {
  // Its `code` is llhttp's (HPE_…), and absent for some replies that are not HTTP at all.
  if (err instanceof undiciErrors.HTTPParserError) return { kind: 'badResponse', status: null, reason: 'not valid HTTP' };
  const code = networkCode(err);
  if (code === undefined) return undefined;
  if (TIMEOUTS.has(code)) return { kind: 'timeout' };
  const notSent = NOT_SENT[code];
  if (notSent !== undefined) return { kind: 'unavailable', sent: false, cause: notSent };
  if (TLS.test(code)) return { kind: 'unavailable', sent: false, cause: 'TLS' };
  if (CUT.has(code) || /^E[A-Z]+$/.test(code)) return { kind: 'unavailable', sent: true, cause: 'connection reset' };
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

export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The response with its body read under the cap. The body goes from undici's chunks to a holder's
 * text without ever being what a promise or an `await` resolves with: those that wait here were
 * made before the upstream answered, are old by now, and would hold the text until the next full
 * collection (request-trees.ts). Whoever parses it takes it out of the holder.
 */
function readBody(response: Dispatcher.ResponseData, max: number): Promise<RawResponse> {
  const declared = Number(firstHeader(response.headers['content-length']));
  if (declared > max) return Promise.reject(bodyTooLarge(response, max));
  return new Promise((resolve, reject) => {
    // A declared length bounds the body (undici ends it there: more bytes would be a protocol
    // error on the connection); a body of unknown length (chunked) is counted as it comes.
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    response.body
      .on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > max) return reject(bodyTooLarge(response, max));
        chunks.push(chunk);
      })
      .on('end', () => {
        ended = true;
        const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
        // The chunks go with it: this listener stays on the body, which the (old) exchange holds.
        chunks.length = 0;
        resolve({ status: response.statusCode, headers: response.headers, text });
      })
      .on('error', reject)
      // Closed before its end without an error: what undici's own readers reject with then.
      .on('close', () => {
        if (!ended) reject(new undiciErrors.RequestAbortedError());
      });
  });
}

/**
 * One exchange until the deadline. Throws AttemptFailed for every upstream outcome,
 * RequestCancelledError when the caller went away, and anything else only for a gateway bug.
 */
export async function exchange(request: ExchangeRequest): Promise<RawResponse> {
  const headers: Record<string, string> = request.extraHeaders === undefined ? { accept: 'application/json' } : { ...request.extraHeaders, accept: 'application/json' };
  // Only the readiness probe gets here without a key (calls refuse that before): no empty header.
  if (request.apiKey !== '') headers['x-service-token'] = request.apiKey;
  let body: string | undefined;
  if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] = 'application/json';
  }

  // undici takes an EventEmitter as the signal of a request ('abort' aborts it): made for every
  // call, it costs a small part of what an AbortController does.
  const abort = new EventEmitter();
  let ended: 'deadline' | 'cancelled' | undefined;
  const timer = setTimeout(
    () => {
      ended ??= 'deadline';
      abort.emit('abort');
    },
    Math.max(0, request.deadlineAt - performance.now()),
  );
  const untrack = request.track(() => {
    ended ??= 'cancelled';
    abort.emit('abort');
  });

  try {
    const response = await request.pool.request({ path: request.path, method: request.method as Dispatcher.HttpMethod, headers, body, signal: abort });
    request.seen.status = response.statusCode;
    return await readBody(response, request.maxBodyBytes);
  } catch (err) {
    if (ended === 'cancelled') throw new RequestCancelledError();
    if (ended === 'deadline') throw new AttemptFailed({ kind: 'timeout' });
    if (err instanceof AttemptFailed) throw err;
    const outcome = outcomeOfNetworkError(err);
    if (outcome === undefined) throw err;
    throw new AttemptFailed(outcome.kind === 'badResponse' ? { ...outcome, status: request.seen.status } : outcome);
  } finally {
    clearTimeout(timer);
    untrack();
  }
}
