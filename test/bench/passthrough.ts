// The benchmark's baseline: a plain HTTP pass-through with one route per shape that makes exactly
// the upstream calls the gateway makes for that shape (same keep-alive undici Pool settings) and
// answers the same JSON as the gateway's `data`, without GraphQL. The gateway's cost is measured
// against this. Run as a child of run.ts (UPSTREAM_URL, PORT), or started in-process.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import {
  deviceWithCheck,
  framework,
  frameworkBody,
  trafficEntry,
  v1Paths,
  type FrameworkInput,
  type V1Device,
  type V1Framework,
  type V1List,
  type V1Traffic,
} from './mapping.ts';

export interface Passthrough {
  url: string;
  close(): Promise<void>;
}

class UpstreamFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`upstream answered ${status}`);
  }
}

type V1 = <T>(method: 'GET' | 'PUT', path: string, body?: unknown) => Promise<T>;

/** One route per shape: what the gateway's resolvers ask of v1 for it, and its `data`. */
const routes: Record<string, (v1: V1, query: URLSearchParams, body: string) => Promise<unknown>> = {
  // 1. trafficLog(deviceId, first: 1)
  async 'GET /traffic-one'(v1, query) {
    const page = await v1<V1List<V1Traffic>>('GET', v1Paths.traffic(query.get('deviceId') ?? '', 1));
    return { trafficLog: { totalCount: page.total, nodes: page.data.map(trafficEntry) } };
  },
  // 2. protectionDevices(first: 50) with check blocks
  async 'GET /device-page'(v1) {
    const page = await v1<V1List<V1Device>>('GET', v1Paths.devices(50, 'id'));
    return {
      protectionDevices: {
        totalCount: page.total,
        pageInfo: { hasNextPage: page.data.length < page.total, hasPreviousPage: false },
        nodes: page.data.map(deviceWithCheck),
      },
    };
  },
  // 3. protectionDevices(first: 20, orderBy: ID DESC) { traffic(first: 5) }: one page, then the
  // devices' traffic pages in parallel, as the gateway's loader batches them.
  async 'GET /fan-out'(v1) {
    const page = await v1<V1List<V1Device>>('GET', v1Paths.devices(20, '-id'));
    const traffic = await Promise.all(page.data.map((device) => v1<V1List<V1Traffic>>('GET', v1Paths.traffic(device.id, 5))));
    return {
      protectionDevices: {
        nodes: page.data.map((device, i) => ({
          id: String(device.id),
          deviceId: device.device_id,
          traffic: { totalCount: traffic[i]!.total, nodes: traffic[i]!.data.map(trafficEntry) },
        })),
      },
    };
  },
  // 4. securityFrameworks(organizationId) with controls and evidences
  async 'GET /frameworks'(v1, query) {
    const list = await v1<V1List<V1Framework>>('GET', v1Paths.frameworks(query.get('organizationId') ?? ''));
    return { securityFrameworks: { totalCount: list.total, nodes: list.data.map(framework) } };
  },
  // 5. updateSecurityFramework(organizationId, id, input)
  async 'PUT /framework-edit'(v1, query, body) {
    const input = JSON.parse(body) as FrameworkInput;
    const path = v1Paths.framework(query.get('organizationId') ?? '', query.get('id') ?? '');
    const edited = await v1<{ security_framework: V1Framework }>('PUT', path, frameworkBody(input));
    return { updateSecurityFramework: { securityFramework: framework(edited.security_framework) } };
  },
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startPassthrough(upstreamUrl: string, { host = '127.0.0.1', port = 0 } = {}): Promise<Passthrough> {
  // The gateway's pool settings (src/gateway/upstream/pool.ts): 64 keep-alive sockets, no pipelining.
  const pool = new Pool(new URL(upstreamUrl).origin, { connections: 64, pipelining: 1, keepAliveTimeout: 4_000 });

  const server = createServer((req, res) => {
    const at = (req.url ?? '/').indexOf('?');
    const path = at < 0 ? (req.url ?? '/') : (req.url ?? '/').slice(0, at);
    const query = new URLSearchParams(at < 0 ? '' : (req.url ?? '').slice(at + 1));
    const route = routes[`${req.method} ${path}`];
    if (!route) return send(res, 404, { error: 'no such shape' });
    const key = req.headers['x-service-token'];
    const v1: V1 = async (method, upstreamPath, body) => {
      const answer = await pool.request({
        method,
        path: upstreamPath,
        headers: {
          accept: 'application/json',
          'x-service-token': typeof key === 'string' ? key : '',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await answer.body.text();
      if (answer.statusCode !== 200) throw new UpstreamFailure(answer.statusCode, text);
      const envelope = JSON.parse(text) as { error?: unknown };
      if (envelope.error !== 0) throw new UpstreamFailure(answer.statusCode, text);
      return envelope as never;
    };
    readBody(req)
      .then((body) => route(v1, query, body))
      .then(
        (data) => send(res, 200, data),
        (error: unknown) =>
          error instanceof UpstreamFailure
            ? send(res, 502, { upstreamStatus: error.status, upstreamBody: error.body.slice(0, 500) })
            : send(res, 500, { error: error instanceof Error ? error.message : String(error) }),
      );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await pool.close();
    },
  };
}

// As a child of run.ts.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { serveParent, tellParentReady } = await import('./children.ts');
  const upstream = process.env.UPSTREAM_URL;
  if (!upstream) throw new Error('UPSTREAM_URL is not set');
  let passthrough: Passthrough | undefined;
  serveParent({}, async () => {
    await passthrough?.close();
  });
  passthrough = await startPassthrough(upstream, { port: Number(process.env.PORT ?? 0) });
  tellParentReady(passthrough.url);
}
