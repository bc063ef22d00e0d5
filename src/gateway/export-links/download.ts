// `GET /exports/<token>`: the v1 export a link stands for, streamed through. Nothing is buffered:
// the upstream body is piped to the client, so the gateway reads from v1 only as fast as the
// client takes it, and a client that leaves cancels the upstream download at once. Before the
// first byte a failure is a JSON error body; after it the connection is cut, so a partial file is
// never mistaken for a whole one (the chunked body lacks its terminator).
//
// Downloads are isolated from GraphQL: they go through a transport of their own (its own pool and
// breaker, so a stalled or failing export never takes a connection or a breaker vote from a query),
// bounded in all and per key (slots.ts), and a client that takes nothing for EXPORT_IDLE_TIMEOUT_S
// is cut, which frees its upstream connection.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Dispatcher } from 'undici';
import { ErrorCode, GatewayError } from '../errors.ts';
import { isAvailabilityFailure } from '../upstream/circuit-breaker.ts';
import { parseJsonObject, upstreamDetail } from '../upstream/envelope.ts';
import { outcomeOfNetworkError } from '../upstream/exchange.ts';
import { keyHash } from '../key-hash.ts';
import { redactKey, upstreamError, type UpstreamOutcome } from '../upstream/outcome.ts';
import { fillPath, type Route } from '../upstream/routes.ts';
import type { Transport } from '../upstream/transport.ts';
import type { Charge } from '../throttling/plugin.ts';
import { TOKEN_PATTERN, type ExportFormat, type ExportLink, type ExportLinkStore } from './links.ts';
import { ExportMetrics, type ExportEnd } from './metrics.ts';
import { DownloadSlots, RETRY_AFTER_S } from './slots.ts';
import { cutWhenIdle } from './idle.ts';
import { sendWindowFile, windowFileName, type WindowPages } from './window-file.ts';

const CONTENT_TYPES: Record<ExportFormat, string> = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson' };
/** An upstream's error answer is read up to this much: enough for its envelope. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface ExportRouteOptions {
  links: ExportLinkStore;
  /** The downloads' own transport: its pool is as large as `maxConcurrent`, its breaker is theirs alone. */
  transport: Transport;
  /** Downloads at once, in all and per key. */
  maxConcurrent: number;
  maxConcurrentPerKey: number;
  /** A download whose client takes nothing for this long is cut. */
  idleTimeoutMs: number;
  /** Takes upstream calls from the bucket of the link's key (throttling): a download is one call. */
  charge?(apiKey: string, calls: number): Promise<Charge>;
  /** The v1 route of a device's traffic, which an export reads with `export=<format>`. */
  trafficRoute: Route<unknown>;
  /** Deadline of the upstream's first byte, and of each gap between two pieces of its body. */
  deadlineMs: number;
  /** Where the exports' metrics are registered: the gateway's /metrics. */
  registry: Registry;
  /** The entries of a time window, page by page, read with the link's key (the domain knows how). */
  windowPages: WindowPages;
  logger: Logger;
}

function sendError(res: ServerResponse, status: number, message: string, extensions: Record<string, unknown>, head = false): void {
  const text = JSON.stringify({ errors: [{ message, extensions }] });
  const retryAfter = typeof extensions.retryAfter === 'number' ? { 'retry-after': String(extensions.retryAfter) } : {};
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...retryAfter });
  res.end(head ? undefined : text);
}

/** What the browser is told of the file: its type and the name it is saved under. */
function fileHeaders(link: ExportLink): Record<string, string> {
  const day = new Date().toISOString().slice(0, 10);
  const name = link.window ? windowFileName({ ...link, window: link.window }) : `traffic-${link.deviceId}-${day}.${link.format}`;
  return {
    'content-type': CONTENT_TYPES[link.format],
    'content-disposition': `attachment; filename="${name}"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
}

function upstreamPath(transport: Transport, trafficRoute: Route<unknown>, link: ExportLink): string {
  const query = new URLSearchParams({ export: link.format, order: link.order });
  for (const action of link.actions ?? []) query.append('actions[]', action);
  if (link.search) query.set('search', link.search);
  return `${transport.basePath}${fillPath(trafficRoute, { id: link.deviceId })}?${query}`;
}

/** The link's filter on a page of one: what HEAD asks the upstream. */
function pageOfOne(link: ExportLink): URLSearchParams {
  const query = new URLSearchParams({ limit: '1' });
  for (const action of link.actions ?? []) query.append('actions[]', action);
  if (link.search) query.set('search', link.search);
  return query;
}

/** The HTTP status of a failure before the first byte: the link's key or device, or the upstream. */
function statusOf(error: GatewayError): number {
  if (error.code === ErrorCode.UNAUTHENTICATED) return 401;
  if (error.code === ErrorCode.FORBIDDEN) return 403;
  if (error.code === ErrorCode.NOT_FOUND) return 404;
  if (error.code === ErrorCode.RATE_LIMITED) return 429;
  return 502;
}

async function errorOutcome(response: Dispatcher.ResponseData): Promise<UpstreamOutcome> {
  let text = '';
  for await (const chunk of response.body) {
    text += String(chunk);
    if (text.length > MAX_ERROR_BODY_BYTES) {
      response.body.destroy();
      break;
    }
  }
  const retryAfter = response.headers['retry-after'];
  return { kind: 'status', status: response.statusCode, detail: upstreamDetail(response.statusCode, parseJsonObject(text)), retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
}

export function exportRoute(options: ExportRouteOptions): (req: IncomingMessage, res: ServerResponse, token: string) => Promise<void> {
  const { transport, trafficRoute, logger } = options;
  const slots = new DownloadSlots(options.maxConcurrent, options.maxConcurrentPerKey);
  const metrics = new ExportMetrics(options.registry, () => slots.active);
  return async (req, res, token) => {
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) {
      res.setHeader('allow', 'GET, HEAD');
      return sendError(res, 405, 'An export link is read with GET (or HEAD for its headers).', { code: 'METHOD_NOT_ALLOWED' });
    }
    const link = TOKEN_PATTERN.test(token) ? await options.links.get(token) : undefined;
    if (!link) {
      return sendError(res, 404, 'This export link does not exist or has expired: create another with createTrafficExport.', { code: ErrorCode.NOT_FOUND }, head);
    }

    if (head) {
      // What a GET would answer, asked of the upstream now (a page of one, with the link's key and
      // filter, charged to its bucket): a 200 here means the download would start, not that the
      // link once did.
      const charge = await options.charge?.(link.apiKey, 1);
      if (charge && !charge.ok) return sendError(res, 429, 'This link\'s key has no upstream calls left.', { code: ErrorCode.RATE_LIMITED, retryAfter: charge.retryAfterS }, true);
      try {
        await transport.client({ apiKey: link.apiKey }).call(trafficRoute, { params: { id: link.deviceId }, query: pageOfOne(link), live: true });
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        const { upstream, ...rest } = error.extensions;
        return sendError(res, statusOf(error), error.message, { ...rest, ...(upstream ? { upstream: redactKey(upstream, link.apiKey) } : {}) }, true);
      }
      res.writeHead(200, fileHeaders(link));
      return void res.end();
    }

    const startedAt = performance.now();
    metrics.started.inc();
    let bytes = 0;
    const done = (outcome: ExportEnd, code?: string) => {
      metrics.ended.inc({ outcome });
      logger.info(
        { export: { device: link.deviceId, format: link.format, bytes, durationMs: Math.round(performance.now() - startedAt), outcome, ...(code ? { code } : {}) } },
        'traffic export',
      );
    };
    const refuse = (error: GatewayError) => {
      const { upstream, ...rest } = error.extensions;
      sendError(res, statusOf(error), error.message, { ...rest, ...(upstream ? { upstream: redactKey(upstream, link.apiKey) } : {}) });
      done('refused', error.code);
    };

    // The link acts with its key: a download is one of that key's upstream calls, like any other.
    const charge = await options.charge?.(link.apiKey, 1);
    if (charge && !charge.ok) {
      const message = `Downloading needs an upstream call this link's key does not have left: retry in ${charge.retryAfterS} s.`;
      sendError(res, 429, message, { code: ErrorCode.RATE_LIMITED, retryAfter: charge.retryAfterS });
      return done('refused', ErrorCode.RATE_LIMITED);
    }
    const slot = slots.take(keyHash(link.apiKey));
    if (!slot.ok) {
      const message =
        slot.bound === 'key'
          ? `This key has ${options.maxConcurrentPerKey} downloads under way, the most allowed (EXPORT_MAX_CONCURRENT_PER_KEY): retry in ${RETRY_AFTER_S} s.`
          : `The gateway has ${options.maxConcurrent} downloads under way, the most allowed (EXPORT_MAX_CONCURRENT): retry in ${RETRY_AFTER_S} s.`;
      sendError(res, slot.bound === 'key' ? 429 : 503, message, { code: ErrorCode.RATE_LIMITED, retryAfter: RETRY_AFTER_S });
      return done('refused', ErrorCode.RATE_LIMITED);
    }
    // The client leaving (or being cut) ends the download, cancels the upstream one and frees the slot.
    const cancel = new AbortController();
    res.on('close', () => {
      slot.release();
      if (!res.writableFinished) cancel.abort();
    });
    if (link.window) {
      const watch = cutWhenIdle(res, options.idleTimeoutMs);
      try {
        await sendWindowFile(res, link, options.windowPages(link, cancel.signal), fileHeaders(link), (count) => (bytes += count));
        metrics.bytes.inc(bytes);
        return done('finished');
      } catch (error) {
        metrics.bytes.inc(bytes);
        if (!res.headersSent && !cancel.signal.aborted && error instanceof GatewayError) return refuse(error);
        // Cut, never ended cleanly: without the chunked terminator the client knows the file is partial.
        res.destroy();
        if (watch.cut) return done('client_idle');
        if (cancel.signal.aborted) return done('client_gone');
        if (error instanceof GatewayError) return done('upstream_failed', error.code);
        throw error;
      } finally {
        watch.stop();
      }
    }

    const permit = transport.breaker.acquire();
    if (!permit) return refuse(upstreamError({ kind: 'circuitOpen' }, 'GET'));
    let response: Dispatcher.ResponseData;
    try {
      response = await transport.pool.request({
        method: 'GET',
        path: upstreamPath(transport, trafficRoute, link),
        headers: { 'x-service-token': link.apiKey, accept: CONTENT_TYPES[link.format] },
        signal: cancel.signal,
        headersTimeout: options.deadlineMs,
        bodyTimeout: options.deadlineMs,
      });
    } catch (error) {
      if (cancel.signal.aborted) {
        permit.release();
        return done('client_gone');
      }
      const outcome = outcomeOfNetworkError(error);
      if (!outcome) throw error;
      if (isAvailabilityFailure(outcome)) permit.failure();
      else permit.release();
      return refuse(upstreamError(outcome, 'GET'));
    }
    if (response.statusCode !== 200) {
      const outcome = await errorOutcome(response).catch((): UpstreamOutcome => ({ kind: 'unavailable', sent: true, cause: 'connection reset' }));
      if (isAvailabilityFailure(outcome)) permit.failure();
      else permit.success();
      return refuse(upstreamError(outcome, 'GET'));
    }
    permit.success();
    res.writeHead(200, fileHeaders(link));
    response.body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    const watch = cutWhenIdle(res, options.idleTimeoutMs);
    try {
      await pipeline(response.body, res);
      metrics.bytes.inc(bytes);
      done('finished');
    } catch {
      metrics.bytes.inc(bytes);
      // Cut, never ended cleanly: without the chunked terminator the client knows the file is partial.
      res.destroy();
      done(watch.cut ? 'client_idle' : cancel.signal.aborted ? 'client_gone' : 'upstream_failed');
    } finally {
      watch.stop();
    }
  };
}

