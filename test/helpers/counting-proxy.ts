// A transparent HTTP proxy that records every request it forwards: put between the gateway and
// the v1 service, it counts the gateway's upstream calls where they land.
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedCall {
  method: string;
  /** Path and query as the gateway sent them. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

export interface CountingProxy {
  url: string;
  calls: ProxiedCall[];
  /** The calls as `METHOD path?query` lines, in the order they came. */
  lines(): string[];
  reset(): void;
  close(): Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const targetUrl = new URL(target);
  const calls: ProxiedCall[] = [];
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const parsed = new URL(url, 'http://proxy');
    calls.push({ method: req.method ?? 'GET', url, path: parsed.pathname, query: parsed.searchParams, headers: req.headers });
    const forward = httpRequest(
      { host: targetUrl.hostname, port: targetUrl.port, method: req.method, path: url, headers: { ...req.headers, host: targetUrl.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    lines: () => calls.map((call) => `${call.method} ${call.url}`),
    reset: () => void calls.splice(0),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
