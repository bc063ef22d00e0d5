// Replicas sharing state through a real Redis (Debian's redis-server on a free port): two gateway
// processes (the bundle, as `npm start` runs it) in front of one reference service, their
// upstream calls counted at a proxy. Buckets, the response cache and its invalidation, persisted
// queries and export links are shared; Redis killed, no request fails and each replica serves
// alone; Redis back, sharing resumes. GATEWAY_WORKERS=2 runs two workers on one port.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';

import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCountingProxy, type CountingProxy } from '../helpers/counting-proxy.ts';
import { DEMO_ADMIN_KEY, postGraphQL, TEST_KEYS } from '../helpers/gateway.ts';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.ts';
import { startTestV1, type TestV1 } from '../helpers/v1.ts';
import { BUNDLE, startEnv, startFlags } from '../helpers/start-command.ts';
import { tailClient, until, type TailClient } from '../helpers/subscriptions.ts';
import { createRng, insertTraffic, makeLiveTrafficEntry } from 'reference-service/testing';

const START_TIMEOUT_MS = 30_000;

interface Replica {
  child: ChildProcess;
  url: string;
  output: { stderr: string };
  stop(): Promise<number | null>;
}

const started: Replica[] = [];

async function startReplica(env: Record<string, string>): Promise<Replica> {
  const output = { stderr: '' };
  const child = fork(BUNDLE, [], {
    execArgv: startFlags(),
    env: { ...startEnv(), PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.stdout!.resume();
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready message: ${output.stderr}`)), START_TIMEOUT_MS);
    child.on('message', (message: { type?: string; url?: string }) => {
      if (message?.type === 'ready' && message.url) {
        clearTimeout(timer);
        resolve(message.url.replace('localhost', '127.0.0.1'));
      }
    });
    void exited.then((code) => reject(new Error(`exited ${code}: ${output.stderr}`)));
  });
  const replica: Replica = {
    child,
    url,
    output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  started.push(replica);
  return replica;
}

async function send(replica: Replica, body: Record<string, unknown>, key: string = TEST_KEYS.admin) {
  const response = await postGraphQL<Record<string, unknown>>(replica.url, body, { 'x-service-token': key });
  return { ...response, json: JSON.parse(response.text) as { data?: Record<string, unknown>; errors?: { extensions?: Record<string, unknown> }[]; extensions?: Record<string, unknown> } };
}

interface Cost {
  estimated: number;
  upstreamCalls: number;
  throttle: { limit: number; remaining: number };
}

/** `send`, with when the client sent and when it had the answer (performance.now()). */
async function timedSend(replica: Replica, body: Record<string, unknown>, key?: string) {
  const startedAt = performance.now();
  const response = await send(replica, body, key);
  return { ...response, startedAt, endedAt: performance.now(), ms: performance.now() - startedAt };
}

// The bucket restores 1 call a second (RATE_LIMIT_RESTORE_PER_S below), and what a busy machine
// adds between two requests is measured, not assumed: each figure is checked against what can have
// been restored in the time the client saw pass, exact on an idle machine and true on a loaded one.
const RESTORE_PER_S = 1;

/**
 * Calls restored within `ms` at most: whole seconds from a full bucket; one more from a bucket
 * that had part of a call restored already (`ceil`).
 */
const restoredWithin = (ms: number, round: 'floor' | 'ceil' = 'floor') => Math[round]((ms / 1000) * RESTORE_PER_S);

const SIX_CALLS = '{ protectionDevices(first: 5) { nodes { id traffic(first: 1) { totalCount } } } }';
const FRAMEWORKS = '{ securityFrameworks(organizationId: "1") { nodes { id title } } }';
const OLD_DOCUMENT = 'query OldFront { protectionDevices(first: 2) { totalCount } }';
const NEW_DOCUMENT = 'query NewFront { protectionDevices(first: 3) { nodes { id } } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const gets = (proxy: CountingProxy) => proxy.calls.filter((call) => call.method === 'GET');

const suite = redisAvailable() ? describe : describe.skip;

suite('replicas sharing state through Redis', () => {
  let redis: TestRedis;
  let v1: TestV1;
  let proxy: CountingProxy;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    redis = await startRedis();
    v1 = await startTestV1({ seed: 'demo' });
    proxy = await startCountingProxy(v1.url);
    const env = {
      UPSTREAM_URL: proxy.url,
      REDIS_URL: redis.url,
      RATE_LIMIT_CALLS: '10',
      RATE_LIMIT_RESTORE_PER_S: String(RESTORE_PER_S),
      RESPONSE_CACHE_TTL_S: '60',
      NODE_ENV: 'production',
    };
    // Two front-end builds: A was deployed with the new one's trusted documents, B still has the old.
    const manifests = mkdtempSync(join(tmpdir(), 'manifests-'));
    writeFileSync(join(manifests, 'new.json'), JSON.stringify({ [`sha256:${sha256(NEW_DOCUMENT)}`]: NEW_DOCUMENT }));
    writeFileSync(join(manifests, 'old.json'), JSON.stringify({ [`sha256:${sha256(OLD_DOCUMENT)}`]: OLD_DOCUMENT }));
    [a, b] = await Promise.all([
      startReplica({ ...env, TRUSTED_DOCUMENTS: join(manifests, 'new.json'), TRUSTED_DOCUMENTS_MODE: 'log' }),
      startReplica({ ...env, TRUSTED_DOCUMENTS: join(manifests, 'old.json'), TRUSTED_DOCUMENTS_MODE: 'log' }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(started.map((replica) => replica.stop()));
    await proxy?.close();
    await v1?.close();
    await redis?.close();
  });

  it('throttles a key with one bucket across replicas', async () => {
    const first = await timedSend(a, { query: SIX_CALLS }, TEST_KEYS.org2);
    expect(first.status).toBe(200);
    // 10 less what it spent (a call per device of the organization's first five, and the list),
    // and what was restored while it ran.
    const cost = first.json.extensions?.cost as Cost;
    expect(cost.throttle.limit).toBe(10);
    expect(cost.upstreamCalls).toBeGreaterThanOrEqual(5);
    expect(cost.throttle.remaining).toBeGreaterThanOrEqual(10 - cost.upstreamCalls);
    expect(cost.throttle.remaining).toBeLessThanOrEqual(10 - cost.upstreamCalls + restoredWithin(first.ms));
    // The same on B until one is refused. B's figures follow A's bucket: what A left, and at most
    // what can have been restored since A's answer began (a bucket of B's own would start full).
    // On an idle machine the first is refused; on a loaded one, each spends 5 or more and a
    // second restores 1, so one of three is.
    let left = cost.throttle.remaining;
    let since = first.startedAt;
    let refused: Awaited<ReturnType<typeof timedSend>> | undefined;
    for (let sent = 0; sent < 3 && refused === undefined; sent++) {
      const next = await timedSend(b, { query: SIX_CALLS }, TEST_KEYS.org2);
      const most = Math.min(10, left + restoredWithin(next.endedAt - since, 'ceil'));
      const { throttle, upstreamCalls, estimated } = next.json.extensions?.cost as Cost;
      if (next.status === 429) {
        refused = next;
        // What it had left when refused: A's bucket, never a full one of B's own.
        expect(throttle.remaining).toBeLessThan(estimated);
        expect(throttle.remaining).toBeLessThanOrEqual(most);
        break;
      }
      expect(next.status).toBe(200);
      expect(throttle.remaining).toBeGreaterThanOrEqual(0);
      expect(throttle.remaining).toBeLessThanOrEqual(most - upstreamCalls);
      left = throttle.remaining;
      since = next.startedAt;
    }
    expect(refused?.status).toBe(429);
    expect(refused!.json.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
  });

  it('answers from one replica what the other kept, and a mutation on one invalidates for both', async () => {
    proxy.reset();
    const kept = await send(a, { query: FRAMEWORKS });
    expect(kept.json.errors).toBeUndefined();
    const shared = await send(b, { query: FRAMEWORKS });
    expect(shared.json.data).toEqual(kept.json.data);
    expect(shared.json.extensions?.cost).toMatchObject({ upstreamCalls: 0 });
    expect(gets(proxy)).toHaveLength(1);

    const created = await send(b, { query: 'mutation { createSecurityFramework(organizationId: "1", input: { title: "Made on replica B", controls: [{ controlId: "R-1", type: "control", title: "A control", weight: 1, details: {}, frequency: "0 9 * * 1", description: "", evidenceType: "document" }] }) { id } }' });
    expect(created.json.errors).toBeUndefined();
    const after = await send(a, { query: FRAMEWORKS });
    expect((after.json.data!.securityFrameworks as { nodes: { title: string }[] }).nodes.map((f) => f.title)).toContain('Made on replica B');
  });

  it('shares automatic persisted queries: registered on one, run by hash on the other', async () => {
    const query = '{ protectionDevices(first: 1) { totalCount } }';
    const sha256Hash = createHash('sha256').update(query).digest('hex');
    const extensions = { persistedQuery: { version: 1, sha256Hash } };
    const registered = await send(a, { query, extensions });
    expect(registered.json.errors).toBeUndefined();
    const byHash = await send(b, { extensions });
    expect(byHash.json.errors).toBeUndefined();
    expect(byHash.json.data).toEqual(registered.json.data);

    // Fetched from Redis once, the query is B's own from then on: gone from Redis, B still runs it
    // by its hash (and a client repeating it costs B no Redis round trip).
    const client = new Redis(redis.url);
    try {
      const shared = await client.keys('gw:apq:*');
      expect(shared).toHaveLength(1);
      await client.del(...shared);
    } finally {
      client.disconnect();
    }
    const again = await send(b, { extensions });
    expect(again.json.errors).toBeUndefined();
    expect(again.json.data).toEqual(registered.json.data);
  });

  it('knows on every replica the trusted documents any replica was deployed with', async () => {
    // B's own manifest is the old build's; the new build's document is A's, shared through Redis.
    const byId = await send(b, { documentId: `sha256:${sha256(NEW_DOCUMENT)}` });
    expect(byId.json.errors).toBeUndefined();
    expect((byId.json.data!.protectionDevices as { nodes: unknown[] }).nodes).toHaveLength(3);
    const old = await send(a, { documentId: `sha256:${sha256(OLD_DOCUMENT)}` });
    expect(old.json.data).toEqual({ protectionDevices: { totalCount: expect.any(Number) } });
    const unknown = await send(b, { documentId: `sha256:${sha256('query Nobody { __typename }')}` });
    expect(unknown.json.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('downloads from one replica an export link minted on the other, and keeps nothing readable in Redis', async () => {
    const minted = await send(a, { query: 'mutation { createTrafficExport(deviceId: "1", format: CSV) { export { url } } }' });
    expect(minted.json.errors).toBeUndefined();
    const link = new URL((minted.json.data!.createTrafficExport as { export: { url: string } }).export.url);
    const download = await fetch(new URL(link.pathname, b.url));
    expect(download.status).toBe(200);
    const csv = await download.text();
    const direct = await fetch(`${v1.url}/api/v1/atb/1/traffic?export=csv`, { headers: { 'x-service-token': TEST_KEYS.admin } });
    expect(csv).toBe(await direct.text());

    // Everything in Redis: no key, no token, no device record in the clear.
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys('*');
      expect(keys.length).toBeGreaterThan(0);
      const token = link.pathname.split('/').pop()!;
      for (const name of keys) {
        const type = await client.type(name);
        const value = type === 'string' ? await client.get(name) : type === 'hash' ? JSON.stringify(await client.hgetall(name)) : '';
        for (const secret of [...Object.values(TEST_KEYS), token]) {
          expect(name).not.toContain(secret);
          expect(value ?? '').not.toContain(secret);
        }
      }
    } finally {
      client.disconnect();
    }
  });

  it('serves every request while Redis is down, says so in /readyz and /metrics, and shares again once it is back', async () => {
    await redis.kill();
    for (const replica of [a, b, a, b]) {
      const response = await send(replica, { query: FRAMEWORKS });
      expect(response.status).toBe(200);
      expect(response.json.errors).toBeUndefined();
    }
    const ready = await fetch(new URL('/readyz', a.url));
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', redis: expect.stringMatching(/^unreachable/) });
    expect(await (await fetch(new URL('/metrics', b.url))).text()).toMatch(/^redis_connected 0$/m);
    expect(a.output.stderr + b.output.stderr).not.toContain(redis.url);

    await redis.restart();
    const until = Date.now() + 10_000;
    while (!(await (await fetch(new URL('/metrics', a.url))).text()).match(/^redis_connected 1$/m) || !(await (await fetch(new URL('/metrics', b.url))).text()).match(/^redis_connected 1$/m)) {
      if (Date.now() > until) throw new Error('the replicas did not reconnect to Redis');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    proxy.reset();
    await send(a, { query: FRAMEWORKS });
    const shared = await send(b, { query: FRAMEWORKS });
    expect(shared.json.extensions?.cost).toMatchObject({ upstreamCalls: 0 });
    expect(gets(proxy)).toHaveLength(1);
  });
});

suite('GATEWAY_WORKERS', () => {
  let redis: TestRedis;
  let v1: TestV1;
  beforeAll(async () => {
    redis = await startRedis();
    v1 = await startTestV1({ seed: 'demo' });
  });
  afterAll(async () => {
    await Promise.all(started.map((replica) => replica.stop()));
    await v1?.close();
    await redis?.close();
  });

  it('runs two workers on one port that answer, and drains both on SIGTERM', async () => {
    const primary = await startReplica({ UPSTREAM_URL: v1.url, REDIS_URL: redis.url, GATEWAY_WORKERS: '2' });
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(primary, { query: '{ protectionDevices(first: 1) { totalCount } }' })));
    for (const answer of answers) expect(answer.json.errors).toBeUndefined();
    expect(await primary.stop()).toBe(0);
  });

  it('runs the embedded demo once for two workers, which answer with its demo key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'workers-demo-'));
    const primary = await startReplica({ REDIS_URL: redis.url, GATEWAY_WORKERS: '2', V1_DATABASE: join(dir, 'v1.sqlite') });
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => postGraphQL<Record<string, unknown>>(primary.url, { query: '{ protectionDevices(first: 1) { totalCount } }' }, { 'x-service-token': DEMO_ADMIN_KEY })),
    );
    for (const answer of answers) expect(JSON.parse(answer.text).errors).toBeUndefined();
    expect(await primary.stop()).toBe(0);
  }, 60_000);

  it('stops with one line when more than one worker has no Redis to share state through', async () => {
    await expect(startReplica({ UPSTREAM_URL: v1.url, GATEWAY_WORKERS: '2' })).rejects.toThrow(/exited 1: GATEWAY_WORKERS: 2 workers .* set REDIS_URL\n$/);
  });
});

suite('the traffic tail across replicas', () => {
  let redis: TestRedis;
  let v1: TestV1;
  let proxy: CountingProxy;
  let a: Replica;
  let b: Replica;
  const clients: TailClient[] = [];
  const device = 3;
  const rng = createRng(17);
  const log = (count: number) => {
    const insert = v1.db.transaction(() => {
      for (let i = 0; i < count; i++) insertTraffic(v1.db, makeLiveTrafficEntry(rng, device, new Date()));
    });
    insert();
  };
  // The tail's polls of the device: pages ordered by -id bigger than the admission checks' page of one.
  const polls = () => proxy.calls.filter((call) => call.path === `/api/v1/atb/${device}/traffic` && call.query.get('order') === '-id' && call.query.get('limit') !== '1').length;

  beforeAll(async () => {
    redis = await startRedis();
    v1 = await startTestV1({ seed: 'demo' });
    proxy = await startCountingProxy(v1.url);
    const env = { UPSTREAM_URL: proxy.url, REDIS_URL: redis.url, TAIL_POLL_INTERVAL_MS: '200' };
    [a, b] = await Promise.all([startReplica(env), startReplica(env)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await Promise.all(started.map((replica) => replica.stop()));
    await proxy?.close();
    await v1?.close();
    await redis?.close();
  });

  it('polls once for subscribers on different replicas, each entry once to each; a killed poller is taken over with no entry lost or doubled', async () => {
    const onA = tailClient(a.url, { 'x-service-token': TEST_KEYS.admin });
    const onB = tailClient(b.url, { 'x-service-token': TEST_KEYS.admin });
    clients.push(onA, onB);
    const first = onA.subscribe({ deviceId: String(device) });
    const second = onB.subscribe({ deviceId: String(device) });
    // Both admitted (each with its own key's call, at its own time): entries until both receive.
    const admitted = Date.now() + 15_000;
    while (first.ids.length === 0 || second.ids.length === 0) {
      if (Date.now() > admitted) throw new Error(`both subscribers receiving: ${JSON.stringify([first.errors, second.errors])}`);
      log(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    proxy.reset();
    const started = Date.now();
    for (let batch = 0; batch < 10; batch++) {
      log(3);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    await new Promise((resolve) => setTimeout(resolve, 600));
    const seconds = (Date.now() - started) / 1000;
    // One poller (every 200 ms) across both replicas, not one each.
    expect(polls()).toBeLessThanOrEqual(Math.ceil((seconds * 1000) / 200) + 2);
    expect(polls()).toBeGreaterThan(0);

    const logged = (v1.db.prepare('SELECT id FROM traffic WHERE device_id = ? AND id >= ? ORDER BY id').all(device, first.ids[0]) as { id: number }[]).map((row) => row.id);
    await until(() => first.ids.length >= logged.length, 5_000, 'the first subscriber');
    expect(first.ids).toEqual(logged);

    // The leader dies (whichever it is, each replica has a subscriber: kill A and keep B's).
    a.child.kill('SIGKILL');
    for (let batch = 0; batch < 10; batch++) {
      log(2);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const newest = (v1.db.prepare('SELECT MAX(id) AS id FROM traffic WHERE device_id = ?').get(device) as { id: number }).id;
    await until(() => (second.ids.at(-1) ?? 0) >= newest, 15_000, 'the entries logged after the poller died');
    expect(second.errors).toEqual([]);
    const all = (v1.db.prepare('SELECT id FROM traffic WHERE device_id = ? AND id >= ? ORDER BY id').all(device, second.ids[0]) as { id: number }[]).map((row) => row.id);
    expect(second.ids).toEqual(all);
  });
});
