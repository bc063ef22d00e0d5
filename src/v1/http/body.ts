import type { IncomingMessage } from 'node:http';
import { invalidJson, payloadTooLarge, unsupportedMediaType } from './errors.ts';

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
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidJson();
  }
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
