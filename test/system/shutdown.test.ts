// SIGTERM under load: the command (the bundle npm start runs, in front of an upstream of this test that takes
// 5 to 60 ms per create) stops while 50 clients keep creating frameworks over kept-alive
// connections. Every create the upstream received, and so stored, must have reached its client as
// an answer: a request the stopping gateway did not start is answered 503 SHUTTING_DOWN (or finds
// its connection closed before it was read), never executed and then cut.
import { spawn } from 'node:child_process';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultUpstream, type FaultUpstream } from '../helpers/fault-upstream.ts';
import { BUNDLE, startEnv, startFlags } from '../helpers/start-command.ts';

const CONCURRENCY = 50;
const TITLE = 'shutdown-under-load';
const CREATE = `mutation($title: String!) { createSecurityFramework(organizationId: "1", input: { title: $title, controls: [] }) { id } }`;

const KEY = 'shutdown-test-key';
let upstream: FaultUpstream;
let nextId = 1;
/** The title of each stored create: which client request it was. */
const titles = new Map<number, string>();

beforeAll(async () => {
  upstream = await startFaultUpstream();
  upstream.setBehaviour((req, res, body) => {
    // The gateway's look at the upstream as it starts: answered, not a create.
    if (req.method !== 'POST') return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":1,"messages":[]}');
    // Stored as it arrives, answered a little later: the window in which a gateway could cut it.
    const id = nextId++;
    titles.set(id, (JSON.parse(body) as { title: string }).title);
    setTimeout(() => {
      const body = JSON.stringify({ error: 0, messages: [], security_framework: id });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    }, 5 + Math.floor(Math.random() * 55));
  });
});
afterAll(async () => {
  await upstream?.close();
});

describe('SIGTERM under a load of creates', () => {
  it('every create v1 stored was answered to its client; the command exits 0', async () => {
    const child = spawn(process.execPath, [...startFlags(), BUNDLE], {
      env: { ...startEnv(), PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'warn', UPSTREAM_URL: upstream.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const until = Date.now() + 30_000;
    while (!/GraphQL gateway ready at (\S+)/.test(stdout)) {
      if (Date.now() > until || child.exitCode !== null) throw new Error(`no start: ${stdout}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const url = new URL(/GraphQL gateway ready at (\S+)/.exec(stdout)![1]!);
    url.hostname = '127.0.0.1';

    const pool = new Pool(url.origin, { connections: CONCURRENCY, pipelining: 1 });
    const answered = new Set<number>();
    const outcomes = new Map<string, number>();
    const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    let sent = 0;
    let stopped = false;
    /** What each request's client saw, by its title, and when (ms after the SIGTERM). */
    const seen = new Map<string, string>();
    let stoppedAt = 0;
    const client = async () => {
      // Bounded: each client sends until the gateway is gone, at most 400 requests.
      for (let i = 0; i < 400; i++) {
        sent += 1;
        const title = `${TITLE}-${sent}`;
        const note = (outcome: string) => seen.set(title, `${outcome} at ${stoppedAt ? Math.round(performance.now() - stoppedAt) : '-'} ms`);
        try {
          const response = await pool.request({
            path: url.pathname,
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-service-token': KEY },
            body: JSON.stringify({ query: CREATE, variables: { title } }),
          });
          const body = (await response.body.json()) as { data?: { createSecurityFramework: { id: string } | null }; errors?: { extensions: { code: string } }[] };
          const id = body.data?.createSecurityFramework?.id;
          if (response.statusCode === 200 && id !== undefined) {
            answered.add(Number(id));
            count('created');
            note('created');
          } else {
            count(`${response.statusCode} ${body.errors?.[0]?.extensions.code}`);
            note(`${response.statusCode} ${body.errors?.[0]?.extensions.code}`);
          }
        } catch (error) {
          count(`no answer: ${(error as { code?: string }).code ?? 'error'}`);
          note(`no answer: ${(error as { code?: string }).code ?? 'error'}`);
          if (stopped) return;
        }
      }
    };
    const clients = Array.from({ length: CONCURRENCY }, () => client());
    // Let the load build up, then stop the command in the middle of it.
    while (answered.size < 200) await new Promise((resolve) => setTimeout(resolve, 10));
    child.kill('SIGTERM');
    stoppedAt = performance.now();
    stopped = true;
    const code = await exited;
    await Promise.all(clients);
    await pool.close();

    const stored = Array.from({ length: nextId - 1 }, (_, i) => i + 1);
    const unanswered = stored.filter((id) => !answered.has(id)).map((id) => `${titles.get(id)}: ${seen.get(titles.get(id)!)}`);
    console.log(`shutdown: ${sent} sent, ${stored.length} stored, outcomes ${JSON.stringify(Object.fromEntries(outcomes))}`);
    expect(code).toBe(0);
    expect(unanswered).toEqual([]);
    expect(stored.length).toBe(answered.size);
  });
});
