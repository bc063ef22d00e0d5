// Requests node refuses before they reach a route (a request line or headers over node's 16 KiB,
// bytes that are not HTTP): node's own answer is a bare status with no body, which a client
// cannot tell from a proxy's. These get the envelope, like every other answer of the service.
import type { Duplex } from 'node:stream';

function envelope(status: number, reason: string, code: string, text: string): string {
  const body = JSON.stringify({ error: 1, messages: [{ code, message: text }] });
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

const TOO_LONG = envelope(
  431,
  'Request Header Fields Too Large',
  'request_too_long',
  'The request line and headers are longer than 16 KiB: send fewer or shorter query parameters.',
);
const NOT_HTTP = envelope(400, 'Bad Request', 'bad_request', 'The request is not valid HTTP/1.1.');

/** The server's `clientError` listener. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  socket.end(error.code === 'HPE_HEADER_OVERFLOW' ? TOO_LONG : NOT_HTTP);
}
