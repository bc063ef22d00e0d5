// Traffic export links, end to end: created through GraphQL, downloaded with plain HTTP GETs that
// carry no key, compared byte for byte with the reference service's own export, and watched at
// the upstream through a recording proxy (which can also cut an export after its first piece).
import { createServer, get, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { postGraphQL, startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';
import { until } from '../../helpers/subscriptions.ts';
import { v1Request } from '../../helpers/v1.ts';

const ADMIN = TEST_KEYS.admin;
const CREATE = `mutation Export($deviceId: ID!, $format: TrafficExportFormat!, $filter: TrafficLogFilter, $orderBy: TrafficLogOrder) {
  createTrafficExport(deviceId: $deviceId, format: $format, filter: $filter, orderBy: $orderBy) { export { url format expiresAt } }
}`;

interface Recorded {
  url: string;
  /** How the gateway's upstream request ended: the whole answer sent, or closed by the gateway before. */
  outcome?: 'finished' | 'closed early';
}

/** A proxy to v1 that records each request's end, and cuts exports after their first piece when asked. */
async function startRecordingProxy(target: string) {
  const records: Recorded[] = [];
  let cutExports = false;
  const server = createServer((req, res) => {
    const record: Recorded = { url: req.url ?? '/' };
    records.push(record);
    const cut = cutExports && record.url.includes('export=');
    const upstream = new URL(target);
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (cut) {
        answer.once('data', (chunk: Buffer) => {
          res.write(chunk, () => res.destroy());
          answer.destroy();
        });
        return;
      }
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    res.on('close', () => {
      record.outcome = res.writableFinished ? 'finished' : 'closed early';
      forward.destroy();
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    records,
    cutExports: (on: boolean) => (cutExports = on),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let stack: Stack;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let device: string;
let otherOrganizationsDevice: string;

async function createExport(variables: Record<string, unknown>, key: string = ADMIN) {
  return postGraphQL<{ createTrafficExport: { export: { url: string; format: string; expiresAt: string } } | null }>(
    stack.gateway.url,
    { query: CREATE, variables },
    { 'x-service-token': key },
  );
}

async function download(url: string): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

beforeAll(async () => {
  const v1Stack = await startStack({ v1: { seedSizes: { devices: 12, traffic: 3000, hotTraffic: 60_000 } }, key: ADMIN });
  proxy = await startRecordingProxy(v1Stack.v1.url);
  await v1Stack.gateway.close();
  // The gateway again, in front of the recording proxy (links of the default lifetime: a case
  // that downloads a link twice on a busy machine must not see it expire; the expiry has its own).
  const { startGateway } = await import('../../../src/gateway/server.ts');
  const { captureLogs } = await import('../../helpers/gateway.ts');
  const logs = captureLogs();
  const gateway = await startGateway({ ...parseGatewayConfig({}), port: 0, upstreamUrl: proxy.url, logger: logs.logger });
  stack = { ...v1Stack, gateway, logs: logs.lines };
  const devices = (await v1Request(stack.v1, 'GET', '/api/v1/atb?limit=500')).json.data as { id: number; organization: { id: number } }[];
  device = String(devices.find((d) => d.id !== 1)!.id);
  otherOrganizationsDevice = String(devices.find((d) => d.organization.id !== 2)!.id);
});

afterAll(async () => {
  await stack?.gateway.close();
  await proxy?.close();
  await stack?.v1.close();
});

describe('createTrafficExport and GET /exports/<token>', () => {
  for (const [format, extension, type] of [['CSV', 'csv', 'text/csv; charset=utf-8'], ['NDJSON', 'ndjson', 'application/x-ndjson']] as const) {
    it(`streams v1's own ${format} export, byte for byte, with a filter and an order, from a link without the key`, async () => {
      const created = await createExport({ deviceId: device, format, filter: { search: 'GET' }, orderBy: { field: 'SRC_IP', direction: 'ASC' } });
      expect(created.errors).toBeUndefined();
      const link = created.data!.createTrafficExport!.export;
      expect(link.format).toBe(format);
      expect(link.url).toMatch(new RegExp(`^${stack.gateway.url.replace('/graphql', '')}/exports/[A-Za-z0-9_-]{43}$`));
      for (const key of stack.keys()) expect(link.url).not.toContain(key);
      expect(Date.parse(link.expiresAt) - Date.now()).toBeGreaterThan(0);

      const direct = await fetch(`${stack.v1.url}/api/v1/atb/${device}/traffic?export=${extension}&order=src_ip&search=GET`, { headers: { 'x-service-token': ADMIN } });
      const expected = Buffer.from(await direct.arrayBuffer());
      expect(expected.length).toBeGreaterThan(1000);
      for (let i = 0; i < 2; i++) {
        const got = await download(link.url);
        expect(got.status).toBe(200);
        expect(got.headers.get('content-type')).toBe(type);
        expect(got.headers.get('content-disposition')).toBe(`attachment; filename="traffic-${device}-${new Date().toISOString().slice(0, 10)}.${extension}"`);
        expect(got.body.equals(expected)).toBe(true);
      }
    });
  }

  it('answers HEAD with the headers and no body', async () => {
    const link = (await createExport({ deviceId: device, format: 'CSV' })).data!.createTrafficExport!.export;
    const response = await fetch(link.url, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="traffic-/);
    expect(await response.text()).toBe('');
  });

  it('follows the gateway\'s CORS settings: an allowed origin may fetch the file and read its name', async () => {
    const link = (await createExport({ deviceId: device, format: 'CSV' })).data!.createTrafficExport!.export;
    const allowed = await fetch(link.url, { headers: { origin: 'https://studio.apollographql.com' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://studio.apollographql.com');
    expect(allowed.headers.get('access-control-expose-headers')).toBe('content-disposition');
    await allowed.arrayBuffer();
    const other = await fetch(link.url, { headers: { origin: 'https://elsewhere.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    await other.arrayBuffer();
  });

  it('refuses another organization\'s device with NOT_FOUND and makes no link', async () => {
    const created = await createExport({ deviceId: otherOrganizationsDevice, format: 'CSV' }, TEST_KEYS.org2);
    expect(created.data?.createTrafficExport).toBeNull();
    expect(created.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
  });

  it('answers an unknown token, and an expired link, with 404 and a JSON error', async () => {
    for (const url of [`${stack.gateway.url.replace('/graphql', '')}/exports/${'A'.repeat(43)}`, `${stack.gateway.url.replace('/graphql', '')}/exports/nope`]) {
      const response = await fetch(url);
      expect(response.status).toBe(404);
      expect(((await response.json()) as any).errors[0].extensions.code).toBe('NOT_FOUND');
    }
    // A gateway whose links live 2 s: one works at once, and is gone once expired.
    const { startGateway } = await import('../../../src/gateway/server.ts');
    const { captureLogs } = await import('../../helpers/gateway.ts');
    const shortLived = await startGateway({ ...parseGatewayConfig({ EXPORT_LINK_TTL_S: '2' }), port: 0, upstreamUrl: proxy.url, logger: captureLogs().logger });
    try {
      const minted = await postGraphQL<{ createTrafficExport: { export: { url: string; expiresAt: string } } }>(shortLived.url, { query: CREATE, variables: { deviceId: device, format: 'NDJSON' } }, { 'x-service-token': ADMIN });
      const link = minted.data!.createTrafficExport.export;
      expect(Date.parse(link.expiresAt) - Date.now()).toBeLessThanOrEqual(2_000);
      expect((await fetch(link.url, { method: 'HEAD' })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, Date.parse(link.expiresAt) - Date.now() + 50));
      const expired = await fetch(link.url);
      expect(expired.status).toBe(404);
      expect(((await expired.json()) as any).errors[0].extensions.code).toBe('NOT_FOUND');
    } finally {
      await shortLived.close();
    }
  });

  it('cancels the upstream download at once when the client leaves mid-stream', async () => {
    const link = (await createExport({ deviceId: '1', format: 'CSV' })).data!.createTrafficExport!.export;
    const before = proxy.records.length;
    await new Promise<void>((resolve, reject) => {
      get(link.url, (res: IncomingMessage) => {
        res.once('data', () => {
          res.destroy();
          resolve();
        });
      }).on('error', reject);
    });
    const upstream = () => proxy.records.slice(before).find((r) => r.url.includes('export=csv'));
    await until(() => upstream()?.outcome !== undefined, 5_000, 'the upstream export to end');
    expect(upstream()!.outcome).toBe('closed early');
    await until(() => stack.logs.some((line) => line.includes('"outcome":"client_gone"')), 5_000, 'the export log line');
  });

  it('answers an upstream failure before the first byte with 502 and a JSON error', async () => {
    const link = (await createExport({ deviceId: device, format: 'CSV' })).data!.createTrafficExport!.export;
    // The last case of this stack: its service goes down for good.
    await stack.v1.close();
    const response = await fetch(link.url);
    expect(response.status).toBe(502);
    const body = (await response.json()) as any;
    expect(body.errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(JSON.stringify(body)).not.toContain('127.0.0.1');
  });
});

describe('an export cut by the upstream after its first byte', () => {
  it('cuts the client\'s connection: never a clean end', async () => {
    // A fresh service behind the proxy for this case.
    const { startTestV1 } = await import('../../helpers/v1.ts');
    const v1 = await startTestV1({ seed: 'demo', seedSizes: { devices: 12, traffic: 3000, hotTraffic: 0 } });
    const cutting = await startRecordingProxy(v1.url);
    const { startGatewayOn } = await import('../../helpers/gateway.ts');
    const gateway = await startGatewayOn(cutting.url);
    try {
      const created = await postGraphQL<{ createTrafficExport: { export: { url: string } } }>(gateway.gateway.url, { query: CREATE, variables: { deviceId: '2', format: 'CSV' } }, { 'x-service-token': 'demo-admin-key' });
      cutting.cutExports(true);
      const outcome = await new Promise<string>((resolve) => {
        get(created.data!.createTrafficExport.export.url, (res) => {
          res.on('data', () => {});
          res.on('end', () => resolve('ended cleanly'));
          res.on('error', () => resolve('cut'));
          res.on('aborted', () => resolve('cut'));
        }).on('error', () => resolve('cut'));
      });
      expect(outcome).toBe('cut');
      await until(() => gateway.logs.some((line) => line.includes('"outcome":"upstream_failed"')), 5_000, 'the export log line');
      const metrics = await (await gateway.get('/metrics')).text();
      expect(metrics).toMatch(/^traffic_exports_total\{outcome="upstream_failed"\} 1$/m);
      for (const line of gateway.logs) expect(line).not.toContain('demo-admin-key');
    } finally {
      await gateway.close();
      await cutting.close();
      await v1.close();
    }
  });
});

describe('what the gateway says of exports', () => {
  it('counts them in /metrics and logs each without its key or token', async () => {
    const metrics = await (await fetch(new URL('/metrics', stack.gateway.url))).text();
    expect(metrics).toMatch(/^traffic_exports_started_total [1-9]/m);
    expect(metrics).toMatch(/^traffic_exports_total\{outcome="finished"\} [1-9]/m);
    expect(metrics).toMatch(/^traffic_export_bytes_total [1-9]/m);
    const lines = stack.logs.filter((line) => line.includes('"msg":"traffic export"'));
    expect(lines.length).toBeGreaterThan(3);
    for (const line of stack.logs) {
      for (const key of stack.keys()) expect(line).not.toContain(key);
      expect(line).not.toMatch(/exports\/[A-Za-z0-9_-]{43}/);
    }
  });
});
