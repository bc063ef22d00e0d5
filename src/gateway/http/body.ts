// Reading a request body with a hard cap: a client cannot make the gateway buffer more than the
// limit, whatever Content-Length says or does not say.
import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/** The client went away before its body was complete: nobody is left to answer. */
export class ClientGoneError extends Error {
  override name = 'ClientGoneError';
}

/**
 * The body as UTF-8 text. Over the limit it stops reading without destroying the request, so
 * that the caller can still answer 413 (and close the connection: the rest stays unread).
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
      if (error) reject(error);
      else resolve(Buffer.concat(chunks).toString('utf8'));
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
