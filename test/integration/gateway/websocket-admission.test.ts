// Subscriptions over WebSocket are admitted as HTTP operations are: trusted documents enforced,
// invalid variables answered BAD_USER_INPUT (nothing logged at error level), keys the upstream
// refuses closed with 4403 instead of held open, and the tail's admission read from the upstream
// even with the response cache on (a fresh subscription starts at the newest entry, not at a
// cached one).
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../../src/gateway/server.ts';
import { captureLogs, TEST_KEYS } from '../../helpers/gateway.ts';
import { TAIL_SUBSCRIPTION, tailClient, until, type TailClient } from '../../helpers/subscriptions.ts';
import { startTestV1, v1Request, type TestV1 } from '../../helpers/v1.ts';

const TRUSTED_HASH = createHash('sha256').update(TAIL_SUBSCRIPTION).digest('hex');
const dir = mkdtempSync(join(tmpdir(), 'ws-admission-'));
const MANIFEST = join(dir, 'persisted-documents.json');
writeFileSync(MANIFEST, JSON.stringify({ [`sha256:${TRUSTED_HASH}`]: TAIL_SUBSCRIPTION }));

let v1: TestV1;
let device: string;
const gateways: { gateway: Gateway; logs: string[] }[] = [];
const clients: TailClient[] = [];

async function gatewayWith(env: Record<string, string>, upstreamUrl = v1.url) {
  const logs = captureLogs();
  const gateway = await startGateway({ ...parseGatewayConfig({ TAIL_POLL_INTERVAL_MS: '100', ...env }), port: 0, upstreamUrl, logger: logs.logger });
  await gateway.upstreamChecked;
  const started = { gateway, logs: logs.lines };
  gateways.push(started);
  return started;
}

function connect(gateway: Gateway, key: string = TEST_KEYS.admin): TailClient {
  const client = tailClient(gateway.url, { 'x-service-token': key });
  clients.push(client);
  return client;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  v1 = await startTestV1({ seed: 'demo', simulateTraffic: 60, seedSizes: { devices: 6, traffic: 200, hotTraffic: 0 } });
  device = String(((await v1Request(v1, 'GET', '/api/v1/atb?limit=1')).json.data as { id: number }[])[0]!.id);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
});

afterAll(async () => {
  for (const { gateway } of gateways) await gateway.close();
  await v1?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('trusted documents over WebSocket (TRUSTED_DOCUMENTS_MODE=enforce)', () => {
  it('runs the trusted subscription, by its text or its documentId, and refuses any other before any entry', async () => {
    const { gateway } = await gatewayWith({ TRUSTED_DOCUMENTS: MANIFEST, TRUSTED_DOCUMENTS_MODE: 'enforce' });
    const client = connect(gateway);
    const trusted = client.subscribe({ deviceId: device });
    const other = `subscription Other($deviceId: ID!) { trafficLogEntryAdded(deviceId: $deviceId) { id } }`;
    const untrusted = client.subscribe({ deviceId: device }, other);
    await untrusted.ended;
    expect(untrusted.errors.map((e) => e.extensions?.code)).toEqual(['PERSISTED_QUERY_NOT_ALLOWED']);
    expect(untrusted.ids).toEqual([]);
    await until(() => trusted.ids.length > 0, 10_000, 'entries of the trusted subscription');

    // A documentId that names the trusted document runs it, whatever text comes with it.
    const byId = await new Promise<{ ids: number; errors: unknown[] }>((resolve) => {
      let ids = 0;
      const errors: unknown[] = [];
      const stop = connect(gateway).client.subscribe(
        { query: '', variables: { deviceId: device }, documentId: `sha256:${TRUSTED_HASH}` } as never,
        {
          next: (result) => {
            if (result.data) ids += 1;
            if (result.errors) errors.push(...result.errors);
            if (ids > 0 || errors.length > 0) {
              stop();
              resolve({ ids, errors });
            }
          },
          error: (error) => resolve({ ids, errors: [error] }),
          complete: () => resolve({ ids, errors }),
        },
      );
    });
    expect(byId.errors).toEqual([]);
    expect(byId.ids).toBeGreaterThan(0);
  }, 30_000);
});

describe('invalid variables over WebSocket', () => {
  it('are BAD_USER_INPUT, as over HTTP, and nothing is logged at error level', async () => {
    const { gateway, logs } = await gatewayWith({});
    const client = connect(gateway);
    const missing = client.subscribe({});
    const wrong = client.subscribe({ deviceId: device, filter: { actions: 'not-a-list', unknown: 1 } });
    await Promise.all([missing.ended, wrong.ended]);
    expect(missing.errors.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(wrong.errors.length).toBeGreaterThan(0);
    for (const error of wrong.errors) expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    for (const line of logs) expect(['error', 'fatal']).not.toContain(JSON.parse(line).level);
  });
});

describe('keys the upstream refuses', () => {
  it('are closed with 4403 instead of acknowledged and held', async () => {
    const { gateway } = await gatewayWith({});
    const refused = Array.from({ length: 20 }, (_, i) => connect(gateway, `random-key-${i}-${Math.random()}`));
    for (const client of refused) client.subscribe({ deviceId: device });
    const closed = await Promise.all(refused.map((client) => Promise.race([client.closed, sleep(10_000).then(() => ({ code: 0, reason: 'still open' }))])));
    for (const event of closed) expect(event.code).toBe(4403);
    // A key the upstream takes is acknowledged as before.
    const accepted = connect(gateway).subscribe({ deviceId: device });
    await until(() => accepted.ids.length > 0, 10_000, 'an entry for a good key');
  }, 30_000);
});

describe('the tail with the response cache on', () => {
  it('starts a fresh subscription at the newest entry, not at one a cached read remembers', async () => {
    const { gateway } = await gatewayWith({ RESPONSE_CACHE_TTL_S: '60' });
    const first = connect(gateway).subscribe({ deviceId: device });
    await until(() => first.ids.length > 0, 10_000, 'a first entry');
    // Entries arrive (60 a second over 6 devices): once the first subscriber has several more, a
    // read cached at its admission is stale.
    await until(() => first.ids.length >= 4, 10_000, 'entries logged after the first admission');
    const newest = ((await v1Request(v1, 'GET', `/api/v1/atb/${device}/traffic?order=-id&limit=1`)).json.data as { id: number }[])[0]!.id;
    const second = connect(gateway).subscribe({ deviceId: device });
    await until(() => second.ids.length > 0, 10_000, 'an entry for the second subscriber');
    expect(second.errors).toEqual([]);
    // At most what arrived during its own admission precedes the newest at its subscribe.
    expect(second.ids[0]!).toBeGreaterThan(newest - 3);

    // afterId of the true newest entry is a valid starting point.
    const latest = ((await v1Request(v1, 'GET', `/api/v1/atb/${device}/traffic?order=-id&limit=1`)).json.data as { id: number }[])[0]!.id;
    const resumed = connect(gateway).subscribe({ deviceId: device, afterId: String(latest) });
    await until(() => resumed.ids.length > 0 || resumed.errors.length > 0, 10_000, 'the resumed subscriber');
    expect(resumed.errors).toEqual([]);
    expect(resumed.ids[0]!).toBeGreaterThan(latest);
  }, 30_000);
});

describe('subscribers that subscribe together', () => {
  it('begin at the same entry, however late their own admission reads come back', async () => {
    // A proxy that holds each admission read (a page of one of a device's traffic) a little
    // longer than the one before: the reads reach v1 at different times, as under load.
    let held = 0;
    const proxy = createServer((req, res) => {
      const url = req.url ?? '/';
      const admission = /\/traffic\?/.test(url) && url.includes('limit=1') && !url.includes('offset=');
      const forward = () => {
        const target = new URL(v1.url);
        const out = httpRequest({ host: target.hostname, port: target.port, path: url, method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        out.on('error', () => res.destroy());
        req.pipe(out);
      };
      if (admission) setTimeout(forward, 150 * (held++ % 10));
      else forward();
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { gateway } = await gatewayWith({}, `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
      const sockets = Array.from({ length: 10 }, () =>
        createClient({ url: gateway.url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: { 'x-service-token': TEST_KEYS.admin }, lazy: false, retryAttempts: 0 }),
      );
      await Promise.all(sockets.map((client) => new Promise<void>((resolve) => client.on('connected', () => resolve()))));
      const firsts: number[] = [];
      const stopsSeen = new Set<unknown>();
      const stops = sockets.map((client) =>
        client.subscribe<{ trafficLogEntryAdded: { id: string } }>(
          { query: TAIL_SUBSCRIPTION, variables: { deviceId: device } },
          {
            next: (result) => {
              const id = result.data?.trafficLogEntryAdded.id;
              if (id !== undefined && firsts.length < 10 && !stopsSeen.has(client)) {
                stopsSeen.add(client);
                firsts.push(Number(id));
              }
            },
            error: () => {},
            complete: () => {},
          },
        ),
      );
      await until(() => firsts.length === 10, 15_000, 'a first entry for every subscriber');
      stops.forEach((stop) => stop());
      await Promise.all(sockets.map((client) => client.dispose()));
      expect(new Set(firsts).size, `first entries: ${firsts.join(', ')}`).toBe(1);
    } finally {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  }, 40_000);
});

describe('an oversized WebSocket frame', () => {
  it('closes the socket (1009) and is one JSON log line, nothing on stderr', async () => {
    const { gateway, logs } = await gatewayWith({ BODY_LIMIT_BYTES: '1024' });
    const stderr = vi.spyOn(process.stderr, 'write');
    const consoleError = vi.spyOn(console, 'error');
    try {
      const socket = new WebSocket(gateway.url.replace(/^http/, 'ws'), 'graphql-transport-ws');
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
      socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-service-token': TEST_KEYS.admin, pad: 'x'.repeat(4096) } }));
      expect(await closed).toBe(1009);
      await until(() => logs.some((line) => line.includes('websocket connection error')), 5_000, 'the log line');
      const line = JSON.parse(logs.find((l) => l.includes('websocket connection error'))!);
      expect(line.level).toBe('warn');
      expect(JSON.stringify(line)).not.toContain('    at ');
      expect(stderr).not.toHaveBeenCalled();
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
      consoleError.mockRestore();
    }
  });
});
