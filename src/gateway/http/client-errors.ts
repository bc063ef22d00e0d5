// What node answers itself, before any request handler, when a client's request cannot be read:
// headers (the URL included) too large, a request too slow, bytes that are not HTTP. Node's own
// answer is a bare status line; a client of this gateway gets the contract's JSON error shape
// there too, as it does for every other refusal.
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

function answer(status: number, reason: string, message: string): string {
  const body = JSON.stringify({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
  return (
    `HTTP/1.1 ${status} ${reason}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Cache-Control: no-store\r\n' +
    'Connection: close\r\n\r\n' +
    body
  );
}

export function answerClientErrorsInJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Gone, or a response already under way on this connection: nothing can be said any more.
    if (error.code === 'ECONNRESET' || !socket.writable || (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    let text: string;
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      text = answer(431, 'Request Header Fields Too Large', 'The request line and headers are too large (a URL this long does not fit): send the operation in a POST body.');
    } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      text = answer(408, 'Request Timeout', 'The request was not received in time.');
    } else {
      text = answer(400, 'Bad Request', 'The request is not valid HTTP.');
    }
    socket.end(text);
  });
}
