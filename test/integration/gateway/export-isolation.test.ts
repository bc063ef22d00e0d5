// Downloads cannot starve GraphQL: stalled export downloads of one tenant against another
// tenant's queries through the same gateway, measured as a ratio against that tenant's own
// baseline in the same run; the bounds on downloads at once (per key: 429, in all: 503, both with
// Retry-After); a client that reads nothing is cut; failing exports never open GraphQL's breaker;
// `/readyz` says when every GraphQL connection is busy with calls waiting.
import { createServer, get, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../../src/gateway/server.ts';
import { captureLogs, postGraphQL, TEST_KEYS } from '../../helpers/gateway.ts';
import { startFaultUpstream, type FaultUpstream } from '../../helpers/fault-upstream.ts';
import { until } from '../../helpers/subscriptions.ts';
import { startTestV1, v1Request, type TestV1 } from '../../helpers/v1.ts';

const CREATE = `mutation Export($deviceId: ID!) { createTrafficExport(deviceId: $deviceId, format: CSV) { export { url } } }`;
const DEVICES = `query Devices { protectionDevices(first: 20) { edges { node { id } } } }`;

let v1: TestV1;
/** The device with a large log, and the key of its organization (the tenant that downloads). */
let hotDevice: string;
let hotKey: string;
/** Another organization's key (the tenant that only queries). */
let otherKey: string;
const gateways: Gateway[] = [];

async function gatewayWith(env: Record<string, string>, upstreamUrl = v1.url): Promise<Gateway> {
  const gateway = await startGateway({ ...parseGatewayConfig(env), port: 0, upstreamUrl, logger: captureLogs().logger });
  await gateway.upstreamChecked;
  gateways.push(gateway);
  return gateway;
}

async function mint(gateway: Gateway, key: string, deviceId = hotDevice): Promise<string> {
  const created = await postGraphQL<{ createTrafficExport: { export: { url: string } } }>(gateway.url, { query: CREATE, variables: { deviceId } }, { 'x-service-token': key });
  expect(created.errors, created.text).toBeUndefined();
  return created.data!.createTrafficExport.export.url;
}

interface Stalled {
  status: number;
  retryAfter: string | undefined;
  /** Settles when the connection closes (the gateway cut it, or the test did). */
  closed: Promise<void>;
  request: ClientRequest;
  response: IncomingMessage;
}

/** A GET that reads the answer's first piece (or its whole error body) and then reads nothing more. */
function stalledDownload(url: string): Promise<Stalled> {
  return new Promise((resolve, reject) => {
    const request = get(url, (res: IncomingMessage) => {
      const closed = new Promise<void>((done) => res.socket.once('close', () => done()));
      if (res.statusCode !== 200) {
        res.resume();
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], closed, request, response: res });
        return;
      }
      res.once('data', () => {
        res.pause();
        resolve({ status: 200, retryAfter: undefined, closed, request, response: res });
      });
    });
    request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
  });
}

async function timedQuery(gateway: Gateway, key: string): Promise<number> {
  const started = performance.now();
  const answer = await postGraphQL<{ protectionDevices: { edges: unknown[] } }>(gateway.url, { query: DEVICES }, { 'x-service-token': key });
  expect(answer.errors, answer.text).toBeUndefined();
  expect(answer.data!.protectionDevices.edges.length).toBeGreaterThan(0);
  return performance.now() - started;
}

async function medianOf(runs: number, measure: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await measure());
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)]!;
}

beforeAll(async () => {
  v1 = await startTestV1({ seed: 'demo', seedSizes: { devices: 12, traffic: 600, hotTraffic: 60_000 } });
  const devices = (await v1Request(v1, 'GET', '/api/v1/atb?limit=500')).json.data as { id: number; organization: { id: number } }[];
  const counts = await Promise.all(devices.map(async (d) => ({ d, total: (await v1Request(v1, 'GET', `/api/v1/atb/${d.id}/traffic?limit=1`)).json.total as number })));
  const hot = counts.reduce((a, b) => (b.total > a.total ? b : a)).d;
  hotDevice = String(hot.id);
  hotKey = hot.organization.id === 1 ? TEST_KEYS.org1 : hot.organization.id === 2 ? TEST_KEYS.org2 : TEST_KEYS.admin;
  otherKey = hot.organization.id === 1 ? TEST_KEYS.org2 : TEST_KEYS.org1;
}, 120_000);

afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  await v1?.close();
});

describe('export downloads and GraphQL share nothing one tenant can exhaust', () => {
  it("64 stalled downloads of one tenant's link leave another tenant's queries as fast as its own baseline", async () => {
    const gateway = await gatewayWith({ UPSTREAM_TIMEOUT_MS: '3000', UPSTREAM_RETRIES: '0' });
    const url = await mint(gateway, hotKey);
    await medianOf(3, () => timedQuery(gateway, otherKey));
    const baseline = await medianOf(9, () => timedQuery(gateway, otherKey));

    const stalled = await Promise.all(Array.from({ length: 64 }, () => stalledDownload(url)));
    const held = stalled.filter((s) => s.status === 200);
    const refused = stalled.filter((s) => s.status !== 200);
    // Two at once per key (EXPORT_MAX_CONCURRENT_PER_KEY); the rest are told to come back later.
    expect(held).toHaveLength(2);
    for (const refusal of refused) {
      expect(refusal.status).toBe(429);
      expect(refusal.retryAfter).toMatch(/^\d+$/);
    }

    const during = await medianOf(9, () => timedQuery(gateway, otherKey));
    for (const s of stalled) s.request.destroy();
    expect(during / Math.max(baseline, 5), `baseline ${baseline.toFixed(1)} ms, during ${during.toFixed(1)} ms`).toBeLessThan(5);
  }, 90_000);

  it('past EXPORT_MAX_CONCURRENT in all, a download is refused 503 with Retry-After and a JSON error body', async () => {
    const gateway = await gatewayWith({ EXPORT_MAX_CONCURRENT: '3', EXPORT_MAX_CONCURRENT_PER_KEY: '2' });
    const first = await mint(gateway, TEST_KEYS.admin);
    const second = await mint(gateway, hotKey);
    const held = await Promise.all([stalledDownload(first), stalledDownload(first), stalledDownload(second)]);
    expect(held.map((s) => s.status)).toEqual([200, 200, 200]);
    const response = await fetch(second);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = (await response.json()) as { errors: { extensions: { code: string; retryAfter: number } }[] };
    expect(body.errors[0]!.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
    for (const s of held) s.request.destroy();
    // The slots come back once their clients are gone.
    await eventually(() => metric(gateway, 'traffic_exports_active 0'));
    const again = await fetch(second);
    expect(again.status).toBe(200);
    await again.body?.cancel();
  }, 60_000);

  it('a download whose client reads nothing for EXPORT_IDLE_TIMEOUT_S is cut, and its slot is free again', async () => {
    const gateway = await gatewayWith({ EXPORT_IDLE_TIMEOUT_S: '1', EXPORT_MAX_CONCURRENT_PER_KEY: '1' });
    const url = await mint(gateway, hotKey);
    const stalled = await stalledDownload(url);
    expect(stalled.status).toBe(200);
    // The gateway cut it: once read, what the client got ends without the chunked terminator.
    await eventually(() => metric(gateway, 'traffic_exports_total{outcome="client_idle"} 1'), 15_000);
    const response = stalled.response;
    const ended = new Promise<string>((resolve) => {
      response.on('end', () => resolve('complete'));
      response.on('error', () => resolve('cut'));
      response.on('aborted', () => resolve('cut'));
    });
    response.resume();
    expect(await ended).toBe('cut');
    // Its one slot is free: a client that reads gets the whole file.
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    const text = await whole.text();
    expect(text.endsWith('\n')).toBe(true);
    expect(text.split('\n').length).toBeGreaterThan(60_000);
  }, 60_000);

  it("failing exports do not open GraphQL's circuit", async () => {
    const proxy = await failingExportsProxy(v1.url);
    try {
      const gateway = await gatewayWith({ UPSTREAM_CIRCUIT_FAILURES: '3', UPSTREAM_RETRIES: '0' }, proxy.url);
      const url = await mint(gateway, hotKey);
      for (let i = 0; i < 8; i++) {
        const failed = await fetch(url);
        expect([502, 503]).toContain(failed.status);
        await failed.arrayBuffer();
      }
      // The downloads' own breaker is open; GraphQL's is not.
      expect((await fetch(url)).status).toBe(502);
      const ready = await fetch(new URL('/readyz', gateway.url));
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ready', exports: expect.stringMatching(/^paused/) });
      await timedQuery(gateway, otherKey);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});

describe('/readyz and a saturated upstream pool', () => {
  let fault: FaultUpstream;
  afterAll(async () => fault?.close());

  it('is 503 while every GraphQL connection is busy and calls wait, and 200 again once they are answered', async () => {
    const waiting: (() => void)[] = [];
    fault = await startFaultUpstream((req, res) => {
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 0, messages: [], total: 0, data: [] }));
      };
      // The readiness probe (a page of one) answers at once; the queries hang until released.
      if ((req.url ?? '').includes('limit=1') && !(req.url ?? '').includes('limit=10')) return answer();
      waiting.push(answer);
    });
    const gateway = await gatewayWith({ UPSTREAM_TIMEOUT_MS: '60000', OPERATION_TIMEOUT_MS: '60000' }, fault.url);
    expect((await fetch(new URL('/readyz', gateway.url))).status).toBe(200);
    const queries = Array.from({ length: 70 }, () => postGraphQL(gateway.url, { query: DEVICES }, { 'x-service-token': TEST_KEYS.admin }));
    await until(() => waiting.length >= 64);
    const busy = await fetch(new URL('/readyz', gateway.url));
    expect(busy.status).toBe(503);
    expect(await busy.json()).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/busy/) });
    while (waiting.length > 0 || (await Promise.race([Promise.all(queries).then(() => true), new Promise((r) => setTimeout(() => r(false), 20))])) === false) {
      waiting.splice(0).forEach((answer) => answer());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await Promise.all(queries);
    expect((await fetch(new URL('/readyz', gateway.url))).status).toBe(200);
  }, 60_000);
});

async function eventually(done: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function metric(gateway: Gateway, line: string): Promise<boolean> {
  const text = await (await fetch(new URL('/metrics', gateway.url))).text();
  return text.split('\n').includes(line);
}

/** A proxy to v1 that answers every export with a 503 envelope and forwards everything else. */
async function failingExportsProxy(target: string) {
  const server = createServer((req, res) => {
    if ((req.url ?? '').includes('export=')) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 503, messages: [{ code: 'unavailable', message: 'exports are down' }] }));
      return;
    }
    const upstream = new URL(target);
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
