// The live tail and downloads within each key's budget: at most TAIL_MAX_POLLERS_PER_KEY distinct
// logs followed per key (TOO_MANY_SUBSCRIPTIONS past it), a poll of an expensive search waits in
// proportion to what it cost, and subscribing, polling and downloading are all charged to the
// key's throttling bucket (RATE_LIMITED once it is empty; pollers wait for it to refill). Upstream
// calls are counted at a proxy that makes searches slow, as a large log makes them.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../../src/gateway/server.ts';
import { captureLogs, postGraphQL, TEST_KEYS } from '../../helpers/gateway.ts';
import { tailClient, until, type TailClient } from '../../helpers/subscriptions.ts';
import { startTestV1, v1Request, type TestV1 } from '../../helpers/v1.ts';

/** How long the proxy holds every traffic search: an expensive poll. */
const SLOW_SEARCH_MS = 300;

let v1: TestV1;
let proxy: Awaited<ReturnType<typeof startSlowSearchProxy>>;
const devices = new Map<number, string>();
const gateways: Gateway[] = [];
const clients: TailClient[] = [];

async function startSlowSearchProxy(target: string) {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    calls.push(url);
    const forward = () => {
      const upstream = new URL(target);
      const out = httpRequest({ host: upstream.hostname, port: upstream.port, path: url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      req.pipe(out);
    };
    if (url.includes('search=')) setTimeout(forward, SLOW_SEARCH_MS);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    /** Calls to a device's traffic since `from` (an index into `calls`). */
    trafficCalls: (from: number) => calls.slice(from).filter((url) => /\/atb\/\d+\/traffic/.test(url)).length,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function gatewayWith(env: Record<string, string>): Promise<Gateway> {
  const gateway = await startGateway({ ...parseGatewayConfig({ TAIL_POLL_INTERVAL_MS: '100', ...env }), port: 0, upstreamUrl: proxy.url, logger: captureLogs().logger });
  await gateway.upstreamChecked;
  gateways.push(gateway);
  return gateway;
}

function connect(gateway: Gateway, key: string): TailClient {
  const client = tailClient(gateway.url, { 'x-service-token': key });
  clients.push(client);
  return client;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  v1 = await startTestV1({ seed: 'demo', simulateTraffic: 24, seedSizes: { devices: 12, traffic: 400, hotTraffic: 0 } });
  for (const device of (await v1Request(v1, 'GET', '/api/v1/atb?limit=500')).json.data as { id: number; organization: { id: number } }[]) {
    if (!devices.has(device.organization.id)) devices.set(device.organization.id, String(device.id));
  }
  proxy = await startSlowSearchProxy(v1.url);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
});

afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  await proxy?.close();
  await v1?.close();
});

describe('pollers per key (TAIL_MAX_POLLERS_PER_KEY)', () => {
  it('refuses a sixth distinct filter of one key with TOO_MANY_SUBSCRIPTIONS; the same filters, and other keys, still subscribe', async () => {
    const gateway = await gatewayWith({});
    const client = connect(gateway, TEST_KEYS.org1);
    const device = devices.get(1)!;
    const five = ['zq', 'qz', 'xj', 'jx', 'qj'].map((search) => client.subscribe({ deviceId: device, filter: { search } }));
    await sleep(1_500);
    for (const s of five) expect(s.errors).toEqual([]);
    const sixth = client.subscribe({ deviceId: device, filter: { search: 'zz' } });
    await sixth.ended;
    expect(sixth.errors.map((e) => e.extensions?.code)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);
    expect(sixth.errors[0]!.message).toMatch(/TAIL_MAX_POLLERS_PER_KEY/);
    // One more subscriber of a log the key already follows starts no poller: admitted.
    const again = connect(gateway, TEST_KEYS.org1).subscribe({ deviceId: device, filter: { search: 'zq' } });
    // Another key has its own budget.
    const other = connect(gateway, TEST_KEYS.org2).subscribe({ deviceId: devices.get(2)!, filter: { search: 'zz' } });
    await sleep(1_000);
    expect(again.errors).toEqual([]);
    expect(other.errors).toEqual([]);
    // Completing every subscription of one log frees its place.
    five[0]!.stop();
    again.stop();
    await sleep(200);
    const freed = client.subscribe({ deviceId: device, filter: { search: 'zz' } });
    await sleep(1_000);
    expect(freed.errors).toEqual([]);
  }, 30_000);
});

describe('the cost of a poll', () => {
  it('stretches the wait after an expensive poll: a slow search is not repeated every interval', async () => {
    const gateway = await gatewayWith({});
    const s = connect(gateway, TEST_KEYS.org1).subscribe({ deviceId: devices.get(1)!, filter: { search: 'qj' } });
    await sleep(1_000);
    const from = proxy.calls.length;
    await sleep(3_000);
    expect(s.errors).toEqual([]);
    // 300 ms a poll: every 100 ms after it would be 7 or 8 polls in 3 s; four times its cost, 2 or 3.
    expect(proxy.trafficCalls(from)).toBeLessThanOrEqual(4);
    expect(proxy.trafficCalls(from)).toBeGreaterThanOrEqual(1);
  }, 30_000);
});

describe("every surface is charged to the key's bucket", () => {
  it('subscribe and complete cycles are refused RATE_LIMITED once the bucket is empty, and make no more upstream calls', async () => {
    const gateway = await gatewayWith({ RATE_LIMIT_CALLS: '5', RATE_LIMIT_RESTORE_PER_S: '1' });
    const client = connect(gateway, TEST_KEYS.org2);
    const from = proxy.calls.length;
    const codes: unknown[] = [];
    const startedAt = performance.now();
    while (performance.now() - startedAt < 3_000) {
      const s = client.subscribe({ deviceId: devices.get(2)!, afterId: '1' });
      await Promise.race([s.ended, sleep(150)]);
      s.stop();
      codes.push(s.errors[0]?.extensions?.code ?? 'admitted');
    }
    expect(codes).toContain('RATE_LIMITED');
    // 5 in the bucket, 1 a second restored, 2 calls an admission with afterId: a handful, not one per cycle.
    expect(proxy.trafficCalls(from)).toBeLessThanOrEqual(5 + 4 + 2);
  }, 30_000);

  it('pauses a poller while its key has no calls left', async () => {
    const gateway = await gatewayWith({ RATE_LIMIT_CALLS: '3', RATE_LIMIT_RESTORE_PER_S: '1' });
    const s = connect(gateway, TEST_KEYS.org2).subscribe({ deviceId: devices.get(2)! });
    await until(() => s.ids.length > 0 || s.errors.length > 0, 10_000, 'a first entry');
    const from = proxy.calls.length;
    await sleep(3_000);
    expect(s.errors).toEqual([]);
    // Every 100 ms would be about 30 polls; the bucket pays for about one a second.
    expect(proxy.trafficCalls(from)).toBeLessThanOrEqual(6);
    // Entries still arrive, as the bucket refills.
    const before = s.ids.length;
    await until(() => s.ids.length > before, 10_000, 'another entry');
  }, 30_000);

  it('refuses downloads of a link with 429 RATE_LIMITED once its key has no calls left', async () => {
    const gateway = await gatewayWith({ RATE_LIMIT_CALLS: '4', RATE_LIMIT_RESTORE_PER_S: '1' });
    const created = await postGraphQL<{ createTrafficExport: { export: { url: string } } }>(
      gateway.url,
      { query: 'mutation M($d: ID!) { createTrafficExport(deviceId: $d, format: NDJSON) { export { url } } }', variables: { d: devices.get(1) } },
      { 'x-service-token': TEST_KEYS.org1 },
    );
    expect(created.errors, created.text).toBeUndefined();
    const statuses: number[] = [];
    const started = performance.now();
    for (let i = 0; i < 10; i++) {
      const response = await fetch(created.data!.createTrafficExport.export.url);
      statuses.push(response.status);
      if (response.status === 429) {
        expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('RATE_LIMITED');
      } else await response.arrayBuffer();
    }
    // What the bucket held, and what it restored (1 a second) while the client measured the downloads.
    const restored = Math.floor((performance.now() - started) / 1000);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(5 + restored);
    expect(statuses).toContain(429);
  }, 30_000);
});
