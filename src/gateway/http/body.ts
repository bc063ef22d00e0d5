// Reading a request body with a hard cap: a client cannot make the gateway buffer more than the
// limit, whatever Content-Length says or does not say.
import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/** The body's bytes are not UTF-8: decoding would replace them, and store other than what was sent. */
export class BodyNotUtf8Error extends Error {
  override name = 'BodyNotUtf8Error';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The client went away before its body was complete: nobody is left to answer. */
export class ClientGoneError extends Error {
  override name = 'ClientGoneError';
}

/**
 * The body as UTF-8 text. Over the limit it stops reading without destroying the request, so
 * that the caller can still answer 413 (see `discardRest`). Bytes that are not UTF-8 are refused
 * rather than replaced.
 */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) return Promise.reject(new BodyTooLargeError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error?: Error) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onGone);
      if (error) return reject(error);
      try {
        resolve(utf8.decode(Buffer.concat(chunks, size)));
      } catch {
        reject(new BodyNotUtf8Error());
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) {
        chunks.push(chunk);
        return;
      }
      req.pause();
      settle(new BodyTooLargeError());
    };
    const onEnd = () => settle();
    const onGone = () => settle(new ClientGoneError());
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onGone);
    req.once('close', onGone);
  });
}

/** Most of a refused body read and thrown away so that its client can read the refusal. */
const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
const DISCARD_MAX_MS = 2_000;

/**
 * Reads the rest of a refused body into nothing, until it ends or a bound is reached. A server
 * that answers 413 and closes while the client is still sending makes most HTTP clients (undici,
 * fetch) fail with EPIPE or a reset before they read the answer; drained first, the refusal
 * arrives. The bounds keep a client from holding the connection with an endless body.
 */
export function discardRest(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('close', done);
      req.off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
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
