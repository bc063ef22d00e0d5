// A transparent HTTP proxy that records every request it forwards: put between the gateway and
// the v1 service, it counts the gateway's upstream calls where they land. It can also answer some
// calls with a failure itself, so that one call of an operation fails while the rest reach the
// real service.
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

/** The status a call is failed with (a v1 failure envelope with it), or undefined to forward it. */
export type FaultRule = (call: ProxiedCall) => number | undefined;

export interface CountingProxy {
  url: string;
  /** Every call that reached the proxy, the failed ones included. */
  calls: ProxiedCall[];
  /** The calls as `METHOD path?query` lines, in the order they came. */
  lines(): string[];
  /** From now on, fails the calls `rule` picks (every attempt of a retried one). */
  fail(rule: FaultRule): void;
  /** Forgets the calls and the fault rule: every call is forwarded again. */
  reset(): void;
  close(): Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const targetUrl = new URL(target);
  const calls: ProxiedCall[] = [];
  let rule: FaultRule | undefined;
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const parsed = new URL(url, 'http://proxy');
    const call: ProxiedCall = { method: req.method ?? 'GET', url, path: parsed.pathname, query: parsed.searchParams, headers: req.headers };
    calls.push(call);
    const status = rule?.(call);
    if (status !== undefined) {
      req.resume();
      const body = JSON.stringify({ error: 1, messages: [{ code: 'injected', message: 'Failed by the test proxy' }] });
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
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
    fail(next) {
      rule = next;
    },
    reset() {
      calls.splice(0);
      rule = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
