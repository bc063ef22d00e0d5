// The only code that speaks HTTP to the v1 upstream. One V1Client per GraphQL request (it carries
// that request's key, deadline and abort signal); the connections come from the process-wide pool.
// Every method goes through the private `request()`: retries of GETs, a circuit breaker or a call
// budget, when they come, belong there and nowhere else.
import { errors as undiciErrors, type Dispatcher } from 'undici';
import type {
  WireList,
  WireProtectionDevice,
  WireSecurityFramework,
  WireTrafficLogEntry,
  WireWebProtectionRecord,
} from './wire.ts';
import {
  ErrorCode,
  GatewayError,
  RequestCancelledError,
  isCancelled,
  unauthenticated,
  upstreamError,
  type UpstreamDetail,
  type UpstreamOutcome,
} from '../errors.ts';
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
import { fillPath, routeName, routes, type HttpMethod, type Route } from './routes.ts';

export const DEFAULT_DEADLINE_MS = 10_000;
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** How one upstream call ended: `ok`, the error code it became, or `CANCELLED`. */
export type CallOutcome = 'ok' | ErrorCode | 'CANCELLED';

/** What `onCall` learns of each call. Never the key, never an id: `route` is the template. */
export interface CallRecord {
  /** e.g. `GET /api/v1/atb/{id}/traffic` */
  route: string;
  method: HttpMethod;
  /** The response status, or null when none came (refused, reset before headers, timeout, cancel). */
  status: number | null;
  durationMs: number;
  outcome: CallOutcome;
}

export interface V1ClientOptions {
  /** The service base, without `/api/v1` (may carry a path prefix). */
  baseUrl: string;
  /** Sent as `X-Service-Token`; never logged, never in an error, never in `onCall`. */
  apiKey: string;
  /** Deadline of each call, headers and body together. Default 10 s. */
  deadlineMs?: number;
  /** Aborts every call (the GraphQL request went away): they reject with RequestCancelledError. */
  signal?: AbortSignal;
  /** Called once per call, after it ended, for logs, metrics and call counting. */
  onCall?: (call: CallRecord) => void;
  /** Cap on a response body; over it the reading stops and the call is UPSTREAM_BAD_RESPONSE. Default 8 MiB. */
  maxBodyBytes?: number;
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
  readonly #origin: URL;
  readonly #basePath: string;
  readonly #apiKey: string;
  readonly #deadlineMs: number;
  readonly #maxBodyBytes: number;
  readonly #signal: AbortSignal | undefined;
  readonly #onCall: ((call: CallRecord) => void) | undefined;
  /** Cancels of the calls in flight: one listener on the request's signal serves them all. */
  readonly #inflight = new Set<() => void>();

  constructor(options: V1ClientOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new Error('The upstream base URL must be http or https');
    }
    this.#origin = base;
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#signal = options.signal;
    this.#onCall = options.onCall;
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

  // --- The one way out ------------------------------------------------------------------------

  async #request<T>(call: Call<T>): Promise<T> {
    const { method } = call.route;
    const started = performance.now();
    const seen: { status: number | null } = { status: null };
    let outcome: CallOutcome = 'ok';
    try {
      const response = await this.#exchange(call, seen);
      return this.#interpret(call, response);
    } catch (err) {
      outcome = isCancelled(err) ? 'CANCELLED' : err instanceof GatewayError ? err.code : ErrorCode.INTERNAL_SERVER_ERROR;
      throw err;
    } finally {
      try {
        this.#onCall?.({
          route: routeName(call.route),
          method,
          status: seen.status,
          durationMs: performance.now() - started,
          outcome,
        });
      } catch {
        // A metrics hook must not change the result of the call.
      }
    }
  }

  /**
   * One HTTP exchange under the deadline and the request's signal; the body read under the cap.
   * `seen.status` is set as soon as a status line arrives, even if the body then fails.
   */
  async #exchange(call: Call<unknown>, seen: { status: number | null }): Promise<RawResponse> {
    const { method } = call.route;
    if (this.#signal?.aborted) throw new RequestCancelledError();
    if (this.#apiKey === '') throw unauthenticated();
    if (!/^[\x21-\x7e]+$/.test(this.#apiKey)) throw unauthenticated('The API key is empty or has characters a header cannot carry');

    const search = call.query?.toString();
    const path = `${this.#basePath}${fillPath(call.route, call.params)}${search ? `?${search}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json', 'x-service-token': this.#apiKey };
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }

    const controller = new AbortController();
    let ended: 'deadline' | 'cancelled' | undefined;
    const timer = setTimeout(() => {
      ended ??= 'deadline';
      controller.abort();
    }, this.#deadlineMs);
    const cancel = () => {
      ended ??= 'cancelled';
      controller.abort();
    };
    this.#inflight.add(cancel);

    try {
      const response = await getPool(this.#origin).request({ path, method, headers, body, signal: controller.signal });
      seen.status = response.statusCode;
      const text = await this.#readCapped(response, method);
      return { status: response.statusCode, headers: response.headers, text };
    } catch (err) {
      if (ended === 'cancelled') throw new RequestCancelledError();
      if (ended === 'deadline') throw upstreamError({ kind: 'timeout' }, method);
      if (err instanceof GatewayError) throw err;
      const outcome = outcomeOfNetworkError(err);
      if (outcome === undefined) throw err;
      throw upstreamError(outcome.kind === 'badResponse' ? { ...outcome, status: seen.status } : outcome, method);
    } finally {
      clearTimeout(timer);
      this.#inflight.delete(cancel);
    }
  }

  async #readCapped(response: Dispatcher.ResponseData, method: HttpMethod): Promise<string> {
    const max = this.#maxBodyBytes;
    const tooLarge = () =>
      upstreamError(
        { kind: 'badResponse', status: response.statusCode, reason: `body: over the ${max}-byte limit` },
        method,
      );
    // Stop reading: the socket is dropped and the rest never received. Destroying an unfinished
    // undici body emits an abort error, which is expected here.
    const discard = () => response.body.on('error', () => {}).destroy();
    const declared = Number(firstHeader(response.headers['content-length']));
    if (declared > max) {
      discard();
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) {
        discard();
        throw tooLarge();
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size).toString('utf8');
  }

  /** The response as the operation's result, or the error the contract names for it. */
  #interpret<T>(call: Call<T>, response: RawResponse): T {
    const { method } = call.route;
    const { status } = response;
    const body = parseJsonObject(response.text);
    const success = status >= 200 && status < 300;
    if (!success) {
      throw upstreamError(
        {
          kind: 'status',
          status,
          detail: this.#redact(upstreamDetail(status, body)),
          retryAfter: firstHeader(response.headers['retry-after']),
        },
        method,
      );
    }
    if (body === undefined) throw upstreamError({ kind: 'badResponse', status, reason: 'body: expected a JSON object' }, method);
    try {
      checkEnvelope(body);
      if (body.error !== 0) {
        throw upstreamError({ kind: 'status', status, detail: this.#redact(upstreamDetail(status, body)) }, method);
      }
      return call.expect(body);
    } catch (err) {
      if (err instanceof ContractViolation) throw upstreamError({ kind: 'badResponse', status, reason: err.reason }, method);
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
