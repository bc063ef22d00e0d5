// What a stopping gateway does with requests. Once it stops, no request is started on any
// connection, idle or kept alive: one that arrives is answered 503 at once, with
// `Connection: close` and a JSON error, so its client knows nothing was done and may retry
// elsewhere. Every request already started runs to its answer, which says `Connection: close`.
// Without this, a request read from a kept-alive connection after SIGTERM was executed (a create
// stored upstream) and then cut with its socket: a client that retried made a duplicate.
import type { IncomingMessage, ServerResponse } from 'node:http';

const SHUTTING_DOWN = JSON.stringify({
  errors: [{ message: 'The gateway is shutting down and started nothing for this request; send it again.', extensions: { code: 'SHUTTING_DOWN' } }],
});

export class ShutdownGate {
  #closing = false;
  readonly #inFlight = new Set<ServerResponse>();

  /** Whether the request may start; when not, it has been answered. */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.#closing) {
      // Its small body (if any) is read into nothing, so the client can read the answer.
      req.resume();
      res.writeHead(503, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(SHUTTING_DOWN),
        connection: 'close',
        'retry-after': '1',
      });
      res.end(SHUTTING_DOWN);
      return false;
    }
    this.#inFlight.add(res);
    res.once('close', () => this.#inFlight.delete(res));
    return true;
  }

  /** From now on nothing starts; the answers of what runs close their connections. */
  close(): void {
    this.#closing = true;
    for (const res of this.#inFlight) {
      if (!res.headersSent) res.setHeader('connection', 'close');
    }
  }

  get closing(): boolean {
    return this.#closing;
  }
}
