// GATEWAY_WORKERS=2 while Redis is down (Debian's redis-server on a free port, killed, then started
// again): the workers still behave as one gateway. Every request goes on a fresh connection, so
// that the primary hands consecutive ones to alternate workers; each check then looks at both
// workers' /metrics to know that both took part. A write through the port is seen by every read
// that follows it (the response cache on); a link minted on either worker downloads on both; a
// key's link quota and its throttle bucket are one across the workers; and once Redis is back it
// all holds again.
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEYS } from '../helpers/gateway.ts';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.ts';
import { startTestV1, type TestV1 } from '../helpers/v1.ts';
import { BUNDLE, startEnv, startFlags } from '../helpers/start-command.ts';

const START_TIMEOUT_MS = 30_000;

interface Cluster {
  url: URL;
  pid: number;
  /** What the primary and its workers wrote (the workers' JSON log lines are on stdout). */
  output: () => string;
  stderr: () => string;
  stop(): Promise<number | null>;
}

async function startCluster(env: Record<string, string>): Promise<Cluster> {
  let stderr = '';
  let stdout = '';
  const child: ChildProcess = fork(BUNDLE, [], {
    execArgv: startFlags(),
    env: { ...startEnv(), PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: '0', LOG_LEVEL: 'warn', GATEWAY_WORKERS: '2', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready message: ${stderr}`)), START_TIMEOUT_MS);
    child.on('message', (message: { type?: string; url?: string }) => {
      if (message?.type === 'ready' && message.url) {
        clearTimeout(timer);
        resolve(message.url.replace('localhost', '127.0.0.1'));
      }
    });
    void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return {
    url: new URL(url),
    pid: child.pid!,
    output: () => stdout + stderr,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * One request on a connection of its own (closed after it): the primary gives each to the next
 * worker. With `agent`, on that agent's kept-alive connection instead (always the same worker).
 */
function once(url: URL, path: string, options: { body?: unknown; key?: string; agent?: Agent } = {}): Promise<{ status: number; text: string }> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: body === undefined ? 'GET' : 'POST',
        agent: options.agent ?? false,
        headers: {
          ...(options.agent ? {} : { connection: 'close' }),
          ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
          ...(options.key ? { 'x-service-token': options.key } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer to ${path} within 20 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

type Answer = { status: number; data?: Record<string, unknown>; errors?: { message: string; extensions?: { code?: string } }[] };

async function graphql(cluster: Cluster, query: string, key: string = TEST_KEYS.admin, agent?: Agent): Promise<Answer> {
  const { status, text } = await once(cluster.url, '/graphql', { body: { query }, key, ...(agent ? { agent } : {}) });
  return { status, ...(JSON.parse(text) as Omit<Answer, 'status'>) };
}

/** Both workers' /metrics (two connections in a row: one to each), as name → value of the lines asked for. */
async function bothMetrics(cluster: Cluster, pattern: RegExp): Promise<string[][]> {
  const texts = await Promise.all([0, 1].map(() => once(cluster.url, '/metrics')));
  return texts.map(({ text }) => text.split('\n').filter((line) => pattern.test(line)));
}

async function untilRedis(cluster: Cluster, connected: 0 | 1): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    // Four reads: with two workers, both are seen at least once each.
    const seen = (await Promise.all([0, 1, 2, 3].map(() => once(cluster.url, '/metrics')))).map(({ text }) => /^redis_connected (\d)$/m.exec(text)?.[1]);
    if (seen.every((value) => value === String(connected))) return;
    if (Date.now() > deadline) throw new Error(`the workers did not see Redis ${connected ? 'back' : 'gone'}: ${seen.join(',')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const framework = (title: string) =>
  `mutation { createSecurityFramework(organizationId: "1", input: { title: "${title}", controls: [{ controlId: "W-1", type: "control", title: "A control", weight: 1, details: {}, frequency: "0 9 * * 1", description: "", evidenceType: "document" }] }) { id } }`;
const FRAMEWORKS = '{ securityFrameworks(organizationId: "1") { nodes { title } } }';
const titles = (answer: Answer) => ((answer.data?.securityFrameworks as { nodes: { title: string }[] } | undefined)?.nodes ?? []).map((node) => node.title);

/** Rounds of a write then reads, each on a fresh connection: the reads that missed the write. */
async function staleReads(cluster: Cluster, label: string, rounds: number, readsPerRound: number): Promise<{ stale: number; reads: number }> {
  let stale = 0;
  // Both workers hold the list in their cache before the first write.
  for (let i = 0; i < 4; i++) expect((await graphql(cluster, FRAMEWORKS)).errors).toBeUndefined();
  for (let round = 0; round < rounds; round++) {
    const title = `${label} ${round}`;
    const created = await graphql(cluster, framework(title));
    expect(created.errors).toBeUndefined();
    for (let read = 0; read < readsPerRound; read++) {
      const answer = await graphql(cluster, FRAMEWORKS);
      expect(answer.errors).toBeUndefined();
      if (!titles(answer).includes(title)) stale += 1;
    }
  }
  return { stale, reads: rounds * readsPerRound };
}

const EXPORT = (deviceId: string) => `mutation { createTrafficExport(deviceId: "${deviceId}", format: CSV, filter: { actions: ["no-such-action"] }) { export { url } } }`;

async function mint(cluster: Cluster, deviceId: string, key: string): Promise<string> {
  const minted = await graphql(cluster, EXPORT(deviceId), key);
  expect(minted.errors).toBeUndefined();
  return new URL((minted.data!.createTrafficExport as { export: { url: string } }).export.url).pathname;
}

async function firstDevice(cluster: Cluster, key: string): Promise<string> {
  const answer = await graphql(cluster, '{ protectionDevices(first: 1) { nodes { id } } }', key);
  return (answer.data!.protectionDevices as { nodes: { id: string }[] }).nodes[0]!.id;
}

/** Each link downloaded twice, on fresh connections (one per worker): the links that failed on either. */
async function failedLinks(cluster: Cluster, links: string[]): Promise<number> {
  let failed = 0;
  for (const link of links) {
    const statuses = [(await once(cluster.url, link)).status, (await once(cluster.url, link)).status];
    if (statuses.some((status) => status !== 200)) failed += 1;
  }
  return failed;
}

const started = (lines: string[]) => Number(lines.find((line) => line.startsWith('traffic_exports_started_total '))?.split(' ')[1] ?? 0);

const suite = redisAvailable() ? describe : describe.skip;

suite('GATEWAY_WORKERS=2 while Redis is down', () => {
  let redis: TestRedis;
  let v1: TestV1;
  let cluster: Cluster;
  let throttled: Cluster;
  /** The links minted during the outage: they work until they expire, Redis back or not. */
  const outageLinks: string[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    v1 = await startTestV1({ seed: 'demo' });
    const env = { UPSTREAM_URL: v1.url, REDIS_URL: redis.url };
    [cluster, throttled] = await Promise.all([
      startCluster({ ...env, RESPONSE_CACHE_TTL_S: '60', EXPORT_LINKS_PER_KEY: '40' }),
      startCluster({ ...env, RATE_LIMIT_CALLS: '10', RATE_LIMIT_RESTORE_PER_S: '1' }),
    ]);
    await redis.kill();
    await Promise.all([untilRedis(cluster, 0), untilRedis(throttled, 0)]);
  }, 90_000);

  afterAll(async () => {
    expect(await cluster?.stop()).toBe(0);
    expect(await throttled?.stop()).toBe(0);
    await v1?.close();
    await redis?.close();
  });

  it('reads what was written through the same port, whichever worker takes the write and the read', async () => {
    const hits = async () => (await bothMetrics(cluster, /^response_cache_events_total\{event="hit"\}/)).map((lines) => Number(lines[0]?.split(' ')[1] ?? 0));
    const before = await hits();
    const { stale, reads } = await staleReads(cluster, 'Outage', 8, 3);
    expect(`${stale} stale of ${reads}`).toBe(`0 stale of ${reads}`);
    // The cache served (and each worker counted what it was served): it was not simply bypassed.
    const after = await hits();
    expect(after[0]! - before[0]! + (after[1]! - before[1]!)).toBeGreaterThan(0);
  });

  it('downloads on both workers every link minted during the outage', async () => {
    const before = (await bothMetrics(cluster, /^traffic_exports_started_total /)).map(started);
    const device = await firstDevice(cluster, TEST_KEYS.org1);
    const links: string[] = [];
    for (let i = 0; i < 30; i++) links.push(await mint(cluster, device, TEST_KEYS.org1));
    outageLinks.push(...links);
    const failed = await failedLinks(cluster, links);
    expect(`${failed} of 30 links failed`).toBe('0 of 30 links failed');
    // Both workers served downloads: the links were tried on each.
    const after = (await bothMetrics(cluster, /^traffic_exports_started_total /)).map(started);
    expect(after[0]! - before[0]!).toBeGreaterThan(0);
    expect(after[1]! - before[1]!).toBeGreaterThan(0);
  });

  it('keeps one link quota per key across the workers', async () => {
    const device = await firstDevice(cluster, TEST_KEYS.org2);
    const links: string[] = [];
    for (let i = 0; i < 42; i++) links.push(await mint(cluster, device, TEST_KEYS.org2));
    // EXPORT_LINKS_PER_KEY=40: the key's two oldest are gone on every worker, its 40 newest work.
    for (const link of links.slice(0, 2)) {
      expect((await once(cluster.url, link)).status).toBe(404);
      expect((await once(cluster.url, link)).status).toBe(404);
    }
    expect(await failedLinks(cluster, links.slice(-3))).toBe(0);
  });

  it('throttles a key with one bucket across the workers', async () => {
    // Ten calls: the whole bucket (RATE_LIMIT_CALLS=10), restored at one a second.
    const TEN_CALLS = '{ protectionDevices(first: 9) { nodes { id traffic(first: 1) { totalCount } } } }';
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await graphql(throttled, TEN_CALLS));
    expect(answers.map((answer) => answer.status)).toEqual([200, 429, 429, 429]);
  });

  it('answers from the worker\'s own memory, and says so once, while the primary does not answer', async () => {
    // A connection kept alive to one worker: the primary, stopped, accepts no new ones.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await graphql(cluster, FRAMEWORKS, TEST_KEYS.admin, agent)).errors).toBeUndefined();
      process.kill(cluster.pid, 'SIGSTOP');
      try {
        for (let i = 0; i < 3; i++) {
          const created = await graphql(cluster, framework(`Alone ${i}`), TEST_KEYS.admin, agent);
          expect(created.errors).toBeUndefined();
          const read = await graphql(cluster, FRAMEWORKS, TEST_KEYS.admin, agent);
          expect(titles(read)).toContain(`Alone ${i}`);
        }
      } finally {
        process.kill(cluster.pid, 'SIGCONT');
      }
    } finally {
      agent.destroy();
    }
    const said = cluster.output().split('\n').filter((line) => line.includes('the primary (GATEWAY_WORKERS) did not answer'));
    expect(said).toHaveLength(1);
  });

  it('stays correct once Redis is back', async () => {
    await redis.restart();
    await untilRedis(cluster, 1);
    const { stale, reads } = await staleReads(cluster, 'Back', 4, 3);
    expect(`${stale} stale of ${reads}`).toBe(`0 stale of ${reads}`);
    const device = await firstDevice(cluster, TEST_KEYS.org1);
    const links: string[] = [];
    for (let i = 0; i < 6; i++) links.push(await mint(cluster, device, TEST_KEYS.org1));
    expect(await failedLinks(cluster, links)).toBe(0);
    expect(await failedLinks(cluster, outageLinks.slice(-5))).toBe(0);
    expect(cluster.output()).not.toContain(redis.url);
  });
});
