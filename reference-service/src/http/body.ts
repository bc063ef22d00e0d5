import type { IncomingMessage } from 'node:http';
import { invalidJson, payloadTooLarge, unsupportedMediaType, validationFailed } from './errors.ts';

/** The largest request body the service reads (1 MiB). */
export const BODY_LIMIT = 1024 * 1024;

/** The client went away while its body was being read: nothing can be answered. */
export class ClientAbortedError extends Error {
  constructor() {
    super('client closed the connection while sending the body');
    this.name = 'ClientAbortedError';
  }
}

// `application/json` and structured `+json` types, with any parameters.
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  return header === undefined ? undefined : Number(header);
}

/** Whether the request carries a body at all (a length above 0, or a chunked body). */
export function hasBody(req: IncomingMessage): boolean {
  const length = declaredLength(req);
  if (length !== undefined) return length > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * Reads the request body as JSON under the contract's rules: more than `limit` bytes is 413 (at
 * once when Content-Length says so, otherwise as soon as the stream passes it, without reading
 * further); a body whose content type is not JSON is 415; bytes that are not UTF-8 JSON are 400
 * `invalid_json`. A request without a body (or with an empty one) reads as `{}`.
 */
export async function readJsonBody(req: IncomingMessage, limit = BODY_LIMIT): Promise<unknown> {
  if (!hasBody(req)) return {};
  const length = declaredLength(req);
  if (length !== undefined && length > limit) throw payloadTooLarge(limit);
  if (!JSON_MEDIA_TYPE.test(req.headers['content-type'] ?? '')) throw unsupportedMediaType();

  const raw = await readLimited(req, limit);
  if (raw.length === 0) return {};
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw invalidJson('The request body is not valid UTF-8.');
  }
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw invalidJson();
  }
  // JSON can still escape a lone UTF-16 surrogate (`"x\ud800y"`): it is no character, and
  // SQLite's UTF-8 would store U+FFFD instead, other than what was sent.
  const lone = loneSurrogateAt(body, '');
  if (lone !== undefined) {
    throw validationFailed(`${lone || 'The body'} holds a lone UTF-16 surrogate, which is not valid Unicode.`, lone || undefined);
  }
  return body;
}

/** The dotted path of the first string or key that is not well-formed Unicode. */
function loneSurrogateAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.isWellFormed() ? undefined : path;
  if (value === null || typeof value !== 'object') return undefined;
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
  for (const [key, item] of entries) {
    const at = path === '' ? key : `${path}.${key}`;
    if (!key.isWellFormed()) return at;
    const found = loneSurrogateAt(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Most of a refused body read and dropped, and for how long, before the connection closes. */
const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
const DISCARD_MAX_MS = 2_000;

/**
 * Reads the rest of a refused body into nothing, until it ends or a bound is reached: a server
 * that answers 413 and closes while the client is still sending makes most HTTP clients (undici,
 * fetch) fail with EPIPE before they read the answer.
 */
export function discardRest(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = (): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('close', done);
      req.off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      seen += chunk.length;
      if (seen > DISCARD_MAX_BYTES) done();
    };
    const timer = setTimeout(done, DISCARD_MAX_MS);
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });
}

function readLimited(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('aborted', onAbort);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        // Stop pulling bytes: the caller answers 413 and the connection closes after it.
        req.pause();
        reject(payloadTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onAbort = (): void => {
      cleanup();
      reject(new ClientAbortedError());
    };
    const onClose = (): void => {
      if (!req.complete) onAbort();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('aborted', onAbort);
    req.on('close', onClose);
  });
}
