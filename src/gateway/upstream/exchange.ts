// One HTTP exchange with the upstream: the request sent on the gateway's pool under a deadline and
// the caller's cancellation, the body read under a size cap, and every network failure classified
// as an upstream outcome. Retries, the breaker and the meaning of the answer are the client's.
import { errors as undiciErrors, type Dispatcher, type Pool } from 'undici';
import { RequestCancelledError } from '../errors.ts';
import type { NetworkCause, UpstreamOutcome } from './outcome.ts';

/** An attempt ended in an upstream outcome; the client decides what becomes of it. */
export class AttemptFailed extends Error {
  constructor(readonly outcome: UpstreamOutcome) {
    super(outcome.kind);
    this.name = 'AttemptFailed';
  }
}

/** A response as read: its status, headers and body text. */
export interface RawResponse {
  status: number;
  text: string;
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

export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * One exchange until the deadline. Rejects with AttemptFailed for every upstream outcome,
 * RequestCancelledError when the caller went away, and anything else only for a gateway bug.
 */
export function exchange(request: ExchangeRequest): Promise<RawResponse> {
  const headers: Record<string, string> = request.extraHeaders === undefined ? { accept: 'application/json' } : { ...request.extraHeaders, accept: 'application/json' };
  // Only the readiness probe gets here without a key (calls refuse that before): no empty header.
  if (request.apiKey !== '') headers['x-service-token'] = request.apiKey;
  let body: string | undefined;
  if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] = 'application/json';
  }
  return new Promise((resolve, reject) => {
    const handler = new ExchangeHandler(request, resolve, reject);
    request.pool.dispatch({ path: request.path, method: request.method as Dispatcher.HttpMethod, headers, body }, handler);
  });
}

/**
 * The exchange as undici's dispatch handler. undici's `request()` would put a stream, an async
 * resource and an abort listener around each response; the gateway reads every body whole, so it
 * takes the chunks as they come.
 *
 * It settles once: with the response at its end, or with the first failure. The deadline and the
 * caller's cancellation settle it at once, even while the request still waits for a socket; it is
 * then aborted as soon as undici starts it.
 */
class ExchangeHandler implements Dispatcher.DispatchHandler {
  readonly #request: ExchangeRequest;
  readonly #resolve: (response: RawResponse) => void;
  readonly #reject: (error: unknown) => void;
  readonly #timer: NodeJS.Timeout;
  readonly #untrack: () => void;
  #controller: Dispatcher.DispatchController | undefined;
  #settled = false;
  #status = 0;
  #headers: RawResponse['headers'] = {};
  readonly #chunks: Buffer[] = [];
  #size = 0;

  constructor(request: ExchangeRequest, resolve: (response: RawResponse) => void, reject: (error: unknown) => void) {
    this.#request = request;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#timer = setTimeout(() => this.#stop(new AttemptFailed({ kind: 'timeout' })), Math.max(0, request.deadlineAt - performance.now()));
    this.#untrack = request.track(() => this.#stop(new RequestCancelledError()));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#settled) controller.abort(new undiciErrors.RequestAbortedError());
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: RawResponse['headers']): void {
    // 1xx informational responses come before the response itself.
    if (statusCode < 200 || this.#settled) return;
    this.#request.seen.status = statusCode;
    this.#status = statusCode;
    this.#headers = headers;
    // A declared length bounds the body (undici ends it there: more bytes would be a protocol
    // error on the connection); a body of unknown length (chunked) is counted as it comes.
    if (Number(firstHeader(headers['content-length'])) > this.#request.maxBodyBytes) this.#tooLarge(controller);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#size += chunk.length;
    if (this.#size > this.#request.maxBodyBytes) return this.#tooLarge(controller);
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    const chunks = this.#chunks;
    const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, this.#size).toString('utf8');
    // Emptied, not replaced: the handler is made when the call starts and may be old by now, and
    // an old array would hold the chunks (and the socket reads they are views of) until the next
    // full collection.
    chunks.length = 0;
    this.#settle();
    this.#resolve({ status: this.#status, headers: this.#headers, text });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.#settled) return;
    const outcome = outcomeOfNetworkError(error);
    this.#fail(outcome === undefined ? error : new AttemptFailed(outcome.kind === 'badResponse' ? { ...outcome, status: this.#request.seen.status } : outcome));
  }

  /** Stops reading a body over the cap: the socket is dropped and the rest never received. */
  #tooLarge(controller: Dispatcher.DispatchController): void {
    this.#fail(new AttemptFailed({ kind: 'badResponse', status: this.#status, reason: `body: over the ${this.#request.maxBodyBytes}-byte limit` }));
    controller.abort(new undiciErrors.RequestAbortedError());
  }

  /** The deadline or the caller: settled now, and the request aborted (now, or once it starts). */
  #stop(error: Error): void {
    if (this.#settled) return;
    this.#fail(error);
    this.#controller?.abort(new undiciErrors.RequestAbortedError());
  }

  #fail(error: unknown): void {
    this.#chunks.length = 0;
    this.#settle();
    this.#reject(error);
  }

  #settle(): void {
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#untrack();
  }
}
