// Export links are authorized live: a link is minted only on the upstream's answer now (never a
// cached or stale read while the upstream is down), and HEAD on a link asks the upstream what a
// GET would get instead of answering 200 from what the gateway remembers.
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
