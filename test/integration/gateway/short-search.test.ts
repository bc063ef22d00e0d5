// A traffic search that v1 refuses (a search made only of one-character terms: no index narrows
// it) reaches a GraphQL client as BAD_USER_INPUT naming `filter.search`, from a query and from a
// subscription alike; the subscription is refused when it subscribes, after one upstream call, and
// no poller starts. A search of two-character terms is served. Upstream calls are counted at a
// proxy between the gateway and v1.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../../src/gateway/server.ts';
import { captureLogs, postGraphQL, TEST_KEYS } from '../../helpers/gateway.ts';
import { tailClient, type TailClient } from '../../helpers/subscriptions.ts';
import { startTestV1, v1Request, type TestV1 } from '../../helpers/v1.ts';

let v1: TestV1;
let gateway: Gateway;
let device: string;
const clients: TailClient[] = [];
const calls: string[] = [];
let proxy: ReturnType<typeof createServer>;

const TRAFFIC = `query T($d: ID!, $s: String) { trafficLog(deviceId: $d, filter: { search: $s }, first: 5) { totalCount edges { node { id } } } }`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const trafficCalls = (from: number) => calls.slice(from).filter((url) => /\/atb\/\d+\/traffic/.test(url)).length;

beforeAll(async () => {
  v1 = await startTestV1({ seed: 'demo', simulateTraffic: 24, seedSizes: { devices: 6, traffic: 600, hotTraffic: 0 } });
  const devices = (await v1Request(v1, 'GET', '/api/v1/atb?limit=500')).json.data as { id: number; organization: { id: number } }[];
  device = String(devices.find((d) => d.organization.id === 1)!.id);
  proxy = createServer((req, res) => {
    calls.push(req.url ?? '/');
    const upstream = new URL(v1.url);
    const out = httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  gateway = await startGateway({ ...parseGatewayConfig({ TAIL_POLL_INTERVAL_MS: '100' }), port: 0, upstreamUrl: proxyUrl, logger: captureLogs().logger });
  await gateway.upstreamChecked;
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  await gateway?.close();
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await v1?.close();
});

describe('a search v1 refuses', () => {
  it("is BAD_USER_INPUT on filter.search in a query, with v1's message in the client's words", async () => {
    for (const search of ['a', 'a B', '7']) {
      const answer = await postGraphQL<unknown>(gateway.url, { query: TRAFFIC, variables: { d: device, s: search } }, { 'x-service-token': TEST_KEYS.org1 });
      expect(answer.errors, answer.text).toHaveLength(1);
      const [error] = answer.errors!;
      expect(error!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'filter.search', upstream: { status: 400 } });
      expect(error!.message).toMatch(/^Invalid input: filter\.search needs a term of at least two characters/);
      for (const term of search.toLowerCase().split(' ')) expect(error!.message).toContain(JSON.stringify(term));
    }
  });

  it('serves a search of two-character terms', async () => {
    const answer = await postGraphQL<{ trafficLog: { totalCount: number } }>(
      gateway.url,
      { query: TRAFFIC, variables: { d: device, s: 'zq 22' } },
      { 'x-service-token': TEST_KEYS.org1 },
    );
    expect(answer.errors, answer.text).toBeUndefined();
    expect(answer.data!.trafficLog.totalCount).toBeGreaterThanOrEqual(0);
  });

  it('refuses a subscription when it subscribes, with one upstream call and no poller', async () => {
    const client = tailClient(gateway.url, { 'x-service-token': TEST_KEYS.org1 });
    clients.push(client);
    const from = calls.length;
    const s = client.subscribe({ deviceId: device, filter: { search: 'A' } });
    await s.ended;
    expect(s.errors).toHaveLength(1);
    expect(s.errors[0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'filter.search' });
    expect(s.ids).toEqual([]);
    // No poller goes on asking: the admission's call was the only one.
    await sleep(1_000);
    expect(trafficCalls(from)).toBe(1);
    const metrics = await (await fetch(new URL('/metrics', gateway.url))).text();
    expect(metrics).toMatch(/^traffic_tail_pollers 0$/m);
    expect(metrics).toMatch(/^traffic_tail_subscriptions 0$/m);
    // The same connection still subscribes to a search v1 serves.
    const served = client.subscribe({ deviceId: device, filter: { search: 'zq' } });
    await sleep(1_000);
    expect(served.errors).toEqual([]);
    served.stop();
  }, 30_000);
});
