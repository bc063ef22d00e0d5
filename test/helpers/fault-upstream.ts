// A misbehaving v1 upstream for gateway tests: a real HTTP server on a free loopback port whose
// answer to each request is scripted (slow, 5xx, reset, malformed JSON, huge body, envelope errors).
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  method: string;
  /** The path without the query string, as sent (still percent-encoded). */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** `performance.now()` when the request was read, to measure the waits between attempts. */
  receivedAt: number;
}

/** How the upstream answers one request; `body` is the request body, already read. */
export type Behaviour = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

export interface FaultUpstream {
  /** Base URL of the service (what the gateway gets as UPSTREAM_URL). */
  url: string;
  port: number;
  calls: RecordedCall[];
  /** The calls to one path (without the query string). */
  callsTo(path: string): RecordedCall[];
  setBehaviour(behaviour: Behaviour): void;
  close(): Promise<void>;
}

const EMPTY_LIST = { error: 0, messages: [], total: 0, data: [] };

export async function startFaultUpstream(behaviour: Behaviour = json(200, EMPTY_LIST)): Promise<FaultUpstream> {
  let current = behaviour;
  const calls: RecordedCall[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const [path = '', search = ''] = (req.url ?? '').split('?', 2);
      calls.push({ method: req.method ?? '', path, query: new URLSearchParams(search), headers: req.headers, body, receivedAt: performance.now() });
      Promise.resolve(current(req, res, body)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    calls,
    callsTo: (path) => calls.filter((call) => call.path === path),
    setBehaviour(next) {
      current = next;
    },
    close() {
      // Clients keep sockets alive: cut them, or close() would wait for their idle timeout.
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

/** A base URL on which nothing listens: a port that was just bound and released. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

// --- Behaviours ----------------------------------------------------------------------------------

/** Routes by path (without the query string): one part of an operation can fail while the rest answers. */
export function byPath(routes: Record<string, Behaviour>, otherwise: Behaviour): Behaviour {
  return (req, res, body) => {
    const path = (req.url ?? '').split('?', 1)[0] ?? '';
    return (routes[path] ?? otherwise)(req, res, body);
  };
}

/** The n-th request gets the n-th behaviour; the last one answers every request after it. */
export function sequence(...behaviours: [Behaviour, ...Behaviour[]]): Behaviour {
  let n = 0;
  return (req, res, body) => {
    const behaviour = behaviours[Math.min(n, behaviours.length - 1)]!;
    n += 1;
    return behaviour(req, res, body);
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Behaviour {
  return (_req, res) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };
}

/** A failure envelope; status 200 by default (a 2xx whose `error` is not 0). */
export function envelopeError(status = 200, messages: unknown[] = [{ code: 'failed', message: 'It failed' }]): Behaviour {
  return json(status, { error: 1, messages });
}

/** Waits `ms`, then behaves as `then`; gives up quietly if the client left meanwhile. */
export function slow(ms: number, then: Behaviour): Behaviour {
  return (req, res, body) => {
    const timer = setTimeout(() => Promise.resolve(then(req, res, body)).catch(() => res.destroy()), ms);
    res.on('close', () => clearTimeout(timer));
  };
}

export const status5xx: Behaviour = json(500, { error: 1, messages: [{ code: 'internal', message: 'Internal error' }] });

export function rateLimited(retryAfterSeconds: number | string): Behaviour {
  return json(429, { error: 1, messages: [{ code: 'rate_limited', message: 'Slow down' }] }, {
    'retry-after': String(retryAfterSeconds),
  });
}

export const notJson: Behaviour = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end('<html><body>Bad gateway</body></html>');
};

/** Valid JSON, valid envelope, but `data` is not an array. */
export const contractBreaking: Behaviour = json(200, { error: 0, messages: [], total: 1, data: { id: 1 } });

/** Streams a valid-looking list of about `bytes` bytes without Content-Length, honouring backpressure. */
export function huge(bytes: number): Behaviour {
  return async (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const entry = JSON.stringify({
      id: 1,
      date_time: '2026-11-21T08:15:30Z',
      type: 'waf',
      src_ip: '10.0.0.1',
      dest_ip: '10.0.0.2',
      dest_port: '443',
      log_message: 'x'.repeat(900),
      extra: {},
    });
    const chunk = Array.from({ length: 64 }, () => entry).join(',');
    let sent = 0;
    res.write('{"error":0,"messages":[],"total":1,"data":[');
    while (sent < bytes && !res.destroyed) {
      const more = res.write(sent === 0 ? chunk : `,${chunk}`);
      sent += chunk.length;
      if (!more) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    }
    if (!res.destroyed) res.end(']}');
  };
}

/** Headers and the start of a body, then a TCP reset. */
export const resetMidBody: Behaviour = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
  res.write('{"error":0,"messages":[],"total":3,"data":[', () => res.socket?.resetAndDestroy());
};

/** The request is read, then the connection is reset: no status line at all. */
export const resetBeforeHeaders: Behaviour = (req) => {
  req.socket.resetAndDestroy();
};

/** Content-Length promises more than is sent, then the connection is closed cleanly. */
export const truncated: Behaviour = (_req, res) => {
  const part = '{"error":0,"messages":[],"total":0,"data":[';
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': part.length + 100 });
  res.write(part, () => res.socket?.end());
};
