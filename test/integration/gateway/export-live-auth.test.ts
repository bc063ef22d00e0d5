// Export links are authorized live: a link is minted only on the upstream's answer now (never a
// cached or stale read while the upstream is down), and HEAD on a link asks the upstream what a
// GET would get instead of answering 200 from what the gateway remembers. A time window's link
// too: its bounds are searched live when it is minted, and its download (an empty window's as
// well) reads the log with the link's key before it answers, so a key that lost access, or an
// upstream that is down, gets no link and no file, whatever the response cache holds.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../../src/gateway/server.ts';
import { captureLogs, postGraphQL, TEST_KEYS } from '../../helpers/gateway.ts';
import { startTestV1, v1Request, type TestV1 } from '../../helpers/v1.ts';

const CREATE = 'mutation M($d: ID!) { createTrafficExport(deviceId: $d, format: CSV) { export { url } } }';

let v1: TestV1;
let gateway: Gateway;
let device: string;
let down = false;
let server: ReturnType<typeof createServer>;

beforeAll(async () => {
  v1 = await startTestV1({ seed: 'demo', seedSizes: { devices: 4, traffic: 100, hotTraffic: 0 } });
  device = String(((await v1Request(v1, 'GET', '/api/v1/atb?limit=1')).json.data as { id: number }[])[0]!.id);
  // A proxy to v1 that can play an upstream that is down (503 to everything).
  server = createServer((req, res) => {
    if (down) {
      res.writeHead(503, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: 503, messages: [{ code: 'unavailable', message: 'down for the test' }] }));
    }
    const target = new URL(v1.url);
    const forward = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const env = { RESPONSE_CACHE_TTL_S: '60', STALE_IF_ERROR_S: '600', UPSTREAM_RETRIES: '0', UPSTREAM_CIRCUIT_FAILURES: '0' };
  gateway = await startGateway({ ...parseGatewayConfig(env), port: 0, upstreamUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, logger: captureLogs().logger });
  await gateway.upstreamChecked;
});

afterAll(async () => {
  await gateway?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await v1?.close();
});

const WINDOW_CREATE = 'mutation W($d: ID!, $f: TrafficLogFilter) { createTrafficExport(deviceId: $d, format: NDJSON, filter: $f) { export { url } } }';
const WINDOW_READ = 'query R($d: ID!, $f: TrafficLogFilter) { trafficLog(deviceId: $d, first: 3, filter: $f, orderBy: { field: DATE_TIME }) { totalCount } }';
/** Every seeded entry, and a window with none yet. */
const WHOLE = { from: '2000-01-01T00:00:00Z', to: '2030-01-01T00:00:00Z' };
const EMPTY = { from: '2031-01-01T00:00:00Z', to: '2032-01-01T00:00:00Z' };
/** A key of the device's organization only, which the test moves to another organization. */
const MOVED_KEY = 'test-moved-key-3333';

const mintWindow = (filter: Record<string, string>, key = MOVED_KEY) =>
  postGraphQL<{ createTrafficExport: { export: { url: string } } | null }>(gateway.url, { query: WINDOW_CREATE, variables: { d: device, f: filter } }, { 'x-service-token': key });

/** A refusal of a link in the contract's shape: the status, a JSON body with one error and its code (GET), no body (HEAD). */
async function expectRefused(link: string, method: 'GET' | 'HEAD', status: number, code: string): Promise<void> {
  const answer = await fetch(link, { method });
  expect(answer.status, `${method} ${link}`).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  const text = await answer.text();
  if (method === 'HEAD') return void expect(text).toBe('');
  const body = JSON.parse(text) as { errors: { message: string; extensions: { code: string } }[] };
  expect(body.errors).toHaveLength(1);
  expect(body.errors[0]!.extensions.code).toBe(code);
  expect(text).not.toContain(MOVED_KEY);
}

const mint = () => postGraphQL<{ createTrafficExport: { export: { url: string } } | null }>(gateway.url, { query: CREATE, variables: { d: device } }, { 'x-service-token': TEST_KEYS.admin });

describe('live authorization of export links', () => {
  it('mints no link while the upstream is down, even with the same read cached or kept stale', async () => {
    const first = await mint();
    expect(first.errors, first.text).toBeUndefined();
    const link = first.data!.createTrafficExport!.export.url;
    expect((await fetch(link, { method: 'HEAD' })).status).toBe(200);

    down = true;
    try {
      const during = await mint();
      expect(during.data?.createTrafficExport ?? null).toBeNull();
      expect(during.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
      // HEAD asks the upstream: the download would fail, and HEAD says so.
      const head = await fetch(link, { method: 'HEAD' });
      expect(head.status).toBe(502);
    } finally {
      down = false;
    }
    expect((await fetch(link, { method: 'HEAD' })).status).toBe(200);
  });
});

describe('live authorization of time window links', () => {
  it('mints none and serves none once the key lost access or the upstream is down, whatever the cache holds', async () => {
    const device1 = ((await v1Request(v1, 'GET', `/api/v1/atb?limit=1`)).json.data as { organization: { id: number } }[])[0]!;
    const home = device1.organization.id;
    await v1.store.storeApiKey(MOVED_KEY, home, 'moved in the test');
    const headers = { 'x-service-token': MOVED_KEY };
    // The windows' reads, answered and kept by the response cache under this key.
    const counts: number[] = [];
    for (const filter of [WHOLE, EMPTY]) {
      const read = await postGraphQL<{ trafficLog: { totalCount: number } }>(gateway.url, { query: WINDOW_READ, variables: { d: device, f: filter } }, headers);
      expect(read.errors, read.text).toBeUndefined();
      counts.push(read.data!.trafficLog.totalCount);
    }
    const [inWhole, inEmpty] = counts;
    expect(inWhole).toBeGreaterThan(0);
    expect(inEmpty).toBe(0);
    const whole = await mintWindow(WHOLE);
    const empty = await mintWindow(EMPTY);
    expect(whole.errors, whole.text).toBeUndefined();
    expect(empty.errors, empty.text).toBeUndefined();
    const wholeLink = whole.data!.createTrafficExport!.export.url;
    const emptyLink = empty.data!.createTrafficExport!.export.url;
    for (const link of [wholeLink, emptyLink]) {
      expect((await fetch(link, { method: 'HEAD' })).status).toBe(200);
    }
    const file = await fetch(wholeLink);
    expect(file.status).toBe(200);
    expect((await file.text()).trim().split('\n').length).toBe(inWhole);
    const none = await fetch(emptyLink);
    expect(none.status).toBe(200);
    expect(await none.text()).toBe('');

    // The key moves to another organization: the device is no longer one it may read (v1: 404).
    await v1.store.storeApiKey(MOVED_KEY, home === 1 ? 2 : 1, 'moved in the test');
    try {
      // The same window's reads are still cached for this key: the gateway answers them.
      const cached = await postGraphQL<{ trafficLog: { totalCount: number } }>(gateway.url, { query: WINDOW_READ, variables: { d: device, f: WHOLE } }, headers);
      expect(cached.data?.trafficLog.totalCount).toBe(inWhole);
      for (const filter of [WHOLE, EMPTY]) {
        const refused = await mintWindow(filter);
        expect(refused.data?.createTrafficExport ?? null).toBeNull();
        expect(refused.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      }
      for (const link of [wholeLink, emptyLink]) {
        await expectRefused(link, 'HEAD', 404, 'NOT_FOUND');
        await expectRefused(link, 'GET', 404, 'NOT_FOUND');
      }
    } finally {
      await v1.store.storeApiKey(MOVED_KEY, home, 'moved in the test');
    }

    // The upstream down: no window link is minted from the cached (or stale) reads, and neither
    // link answers a file or a 200.
    down = true;
    try {
      for (const filter of [WHOLE, EMPTY]) {
        const refused = await mintWindow(filter);
        expect(refused.data?.createTrafficExport ?? null).toBeNull();
        expect(refused.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
      }
      for (const link of [wholeLink, emptyLink]) {
        await expectRefused(link, 'HEAD', 502, 'UPSTREAM_UNAVAILABLE');
        await expectRefused(link, 'GET', 502, 'UPSTREAM_UNAVAILABLE');
      }
    } finally {
      down = false;
    }
    expect((await fetch(emptyLink)).status).toBe(200);
  });
});
