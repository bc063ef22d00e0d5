// The command (`npm start`) as an operator runs it: the start script's build (scripts/build.mjs),
// then the bundle it makes (dist/main.js) under plain node, spawned as a process on port 0 in a
// temp working directory. With no UPSTREAM_URL it starts the embedded reference service with demo
// data under ./data, prints the GraphQL URL and the demo key, and Sandbox starts with that key; a
// restart keeps the data and still prints the key. With UPSTREAM_URL only the gateway starts.
// SIGTERM/SIGINT let the requests in flight finish, refuse new connections and exit 0. A bad
// setting stops the start with one line naming it. The build is made once for the system suites
// (test/system/setup.ts); the last describe checks the build itself: only what changed, and two
// starts at once in one checkout.
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildASTSchema, buildClientSchema, concatAST, getIntrospectionQuery, parse, printSchema, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SEED_SIZES } from 'reference-service/testing';
import { json, startFaultUpstream, type Behaviour, type FaultUpstream } from '../helpers/fault-upstream.ts';
import { DEMO_ADMIN_KEY, postGraphQL } from '../helpers/gateway.ts';
import { startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { BUNDLE, REPO, startEnv, startFlags } from '../helpers/start-command.ts';
import { tailClient, until, type Received, type TailClient } from '../helpers/subscriptions.ts';

const START_TIMEOUT_MS = 30_000;
/** The query the landing page opens with (src/gateway/http/disclosure.ts). */
const FIRST_QUERY = `query FirstLook {
  protectionDevices(first: 5) {
    totalCount
    nodes { id deviceId type endpoint services organization { name } }
  }
}`;
const EMPTY_LIST = { error: 0, messages: [], total: 0, data: [] };

interface Run {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const runs: Run[] = [];
const tempDirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-main-'));
  tempDirs.push(dir);
  return dir;
}

/** A clean environment: nothing of the test runner's (NODE_ENV=test, …) leaks into the command. */
function commandEnv(env: Record<string, string>, cwd: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, PORT: '0', LOG_LEVEL: 'warn', ...env };
}

/** The bundle as `npm start` runs it: plain node, with the start script's flags and environment. */
function start(env: Record<string, string>, cwd: string): Run {
  const child = spawn(process.execPath, [...startFlags(), BUNDLE], { cwd, env: commandEnv({ ...startEnv(), ...env }, cwd), stdio: ['ignore', 'pipe', 'pipe'] });
  return track(child);
}

/** The same, started by a supervisor: with an IPC channel to this process. */
function startSupervised(env: Record<string, string>, cwd: string, nodeFlags: string[] = []): Run {
  const child = fork(BUNDLE, [], { cwd, env: commandEnv({ ...startEnv(), ...env }, cwd), execArgv: [...startFlags(), ...nodeFlags], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  return track(child);
}

/** Collects the child's output and exit, and stops it in afterAll if a test did not. */
function track(child: ChildProcess): Run {
  const output = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const run = { child, output, exited };
  runs.push(run);
  return run;
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** What a start with V1_DATABASE=:memory: says while it seeds, its only line on stderr. */
const SEEDING_IN_MEMORY = 'seeding the demo data into an in-memory database (a few seconds)…\n';

/** Waits for the start banner; the URL as printed and as reachable from here. */
async function started(run: Run): Promise<{ printedUrl: string; url: string; port: number }> {
  const banner = /GraphQL gateway ready at (http:\/\/\S+\/graphql)\n/;
  await waitFor(
    () => banner.test(run.output.stdout) || run.child.exitCode !== null,
    `the start banner (stdout: ${run.output.stdout}, stderr: ${run.output.stderr})`,
    START_TIMEOUT_MS,
  );
  const printedUrl = banner.exec(run.output.stdout)?.[1];
  if (!printedUrl) throw new Error(`no banner; exit ${run.child.exitCode}; stderr: ${run.output.stderr}`);
  const url = new URL(printedUrl);
  url.hostname = '127.0.0.1'; // printed as localhost; the gateway listens on 127.0.0.1
  return { printedUrl, url: url.href, port: Number(url.port) };
}

function lineAfter(text: string, label: string): string | undefined {
  return text.split('\n').find((line) => line.startsWith(label))?.slice(label.length);
}

/** True when a new TCP connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

afterAll(async () => {
  for (const run of runs) {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
  }
  await Promise.all(runs.map((run) => within(run.exited, 5_000, 'a killed process to exit').catch(() => undefined)));
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe('npm start with no UPSTREAM_URL: the embedded default', () => {
  const cwd = tempDir();
  const seedSizes = { V1_SEED_DEVICES: '12', V1_SEED_TRAFFIC: '300' };
  let first: Run;
  let gatewayUrl: string;
  let v1Url: string;
  let frameworkId: string;
  let tail: TailClient | undefined;
  let following: Received | undefined;

  beforeAll(async () => {
    first = start(seedSizes, cwd);
    gatewayUrl = (await started(first)).url;
    v1Url = lineAfter(first.output.stdout, 'Embedded v1 reference service at ')?.split(' ')[0] ?? '';
  });

  it('prints the GraphQL URL, the embedded service and the demo key', () => {
    const lines = first.output.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^GraphQL gateway ready at http:\/\/localhost:\d+\/graphql$/);
    expect(lines[1]).toMatch(/^Embedded v1 reference service at http:\/\/127\.0\.0\.1:\d+ \(database \.\/data\/v1\.sqlite\)$/);
    expect(lines[2]).toBe('Demo key (admin, all organizations): demo-admin-key  (send it as X-Service-Token)');
    expect(lines[3]).toMatch(/^Open http:\/\/localhost:\d+\/graphql in a browser: GraphiQL \(it works offline\) starts with the demo key in its headers\.$/);
    expect(lines[4]).toMatch(/^Apollo Sandbox, when online: http:\/\/localhost:\d+\/graphql\?explorer=sandbox/);
    expect(lines.at(-1)).toMatch(/^Gateway version \d+\.\d+\.\d+ \((commit [0-9a-f]+|from sources), /);
    // The first start says why it is silent for a few seconds: it seeds the demo database.
    expect(first.output.stderr).toBe('seeding the demo data into ./data/v1.sqlite (a few seconds, once)…\n');
    expect(v1Url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('keeps the demo data in a file database under ./data', () => {
    expect(existsSync(join(cwd, 'data', 'v1.sqlite'))).toBe(true);
  });

  it('leads GET / to the offline explorer, with the demo key in its headers and a link to Sandbox, which has the key too', async () => {
    const root = await fetch(new URL('/', gatewayUrl), { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/graphql');
    const page = await fetch(gatewayUrl, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).not.toContain('https://');
    expect(html).toContain('"headers":{"X-Service-Token":"demo-admin-key"}');
    expect(html).toContain('"sandbox":"/graphql?explorer=sandbox"');
    const sandbox = await (await fetch(`${gatewayUrl}?explorer=sandbox`, { headers: { accept: 'text/html' } })).text();
    expect(sandbox).toContain('https://embeddable-sandbox.cdn.apollographql.com');
    expect(sandbox).toContain('"sharedHeaders":{"X-Service-Token":"demo-admin-key"}');
  });

  it('answers the first query with the demo key, as the embedded service holds it', async () => {
    const response = await postGraphQL<{ protectionDevices: { totalCount: number; nodes: { id: string; organization: { name: string } }[] } }>(
      gatewayUrl,
      { query: FIRST_QUERY },
      { 'x-service-token': 'demo-admin-key' },
    );
    expect(response.errors).toBeUndefined();
    expect(response.status).toBe(200);
    const v1 = await fetch(`${v1Url}/api/v1/atb?limit=5`, { headers: { 'x-service-token': 'demo-admin-key' } });
    const page = (await v1.json()) as { total: number; data: { id: number }[] };
    expect(response.data?.protectionDevices.totalCount).toBe(page.total);
    expect(page.total).toBe(12);
    expect(response.data?.protectionDevices.nodes.map((node) => node.id)).toEqual(page.data.map((device) => String(device.id)));
  });

  it('reaches the embedded service with the demo key for the frameworks too, and is ready', async () => {
    const response = await postGraphQL<{ securityFrameworks: { totalCount: number } }>(
      gatewayUrl,
      { query: '{ securityFrameworks(organizationId: "1") { totalCount } }' },
      { 'x-service-token': 'demo-admin-key' },
    );
    const v1 = await fetch(`${v1Url}/api/v1/organizations/1/security-frameworks`, { headers: { 'x-service-token': 'demo-admin-key' } });
    const list = (await v1.json()) as { total: number };
    expect(response.data?.securityFrameworks.totalCount).toBe(list.total);
    expect(list.total).toBeGreaterThan(0);
    const ready = await fetch(new URL('/readyz', gatewayUrl));
    expect(ready.status).toBe(200);
  });

  it('stores a change made through the gateway', async () => {
    const created = await postGraphQL<{ createSecurityFramework: { id: string } }>(
      gatewayUrl,
      {
        query: 'mutation ($input: SecurityFrameworkInput!) { createSecurityFramework(organizationId: "1", input: $input) { id } }',
        variables: {
          input: {
            title: 'Kept across restarts',
            controls: [{ controlId: 'K-1', type: 'policy', title: 'Keep it', weight: 1, frequency: '0 9 * * 1', evidenceType: 'document' }],
          },
        },
      },
      { 'x-service-token': 'demo-admin-key' },
    );
    expect(created.errors).toBeUndefined();
    frameworkId = created.data!.createSecurityFramework.id;
    expect(frameworkId).toMatch(/^\d+$/);
  });

  it('lets a front-end dev server on localhost call it (CORS) with no setting', async () => {
    const answer = await fetch(gatewayUrl, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-service-token' },
    });
    expect(answer.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
  });

  it("follows device 1's traffic as the demo's simulator logs it, with the demo key", async () => {
    tail = tailClient(gatewayUrl, { 'x-service-token': DEMO_ADMIN_KEY });
    following = tail.subscribe({ deviceId: '1' });
    await until(() => following!.ids.length >= 2, 20_000, 'two entries of device 1');
    expect(following.errors).toEqual([]);
    expect(following.ids[1]).toBeGreaterThan(following.ids[0]!);
  });

  it('stops on SIGTERM with exit code 0: an open subscription\'s socket closes with 1012 (Service Restart), which clients retry', async () => {
    first.child.kill('SIGTERM');
    expect(await within(first.exited, 15_000, 'exit after SIGTERM')).toEqual({ code: 0, signal: null });
    await following?.ended;
    expect(following?.completed).toBe(false);
    const closed = await tail!.closed;
    expect(closed.code).toBe(1012);
    expect(closed.reason).toContain('restarting');
  });

  it('restarts on the same ./data: keeps the data, prints the demo key again, stops on SIGINT', async () => {
    const second = start(seedSizes, cwd);
    const { url } = await started(second);
    expect(second.output.stdout).toContain('Demo key (admin, all organizations): demo-admin-key');
    const page = await (await fetch(`${url}?explorer=sandbox`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('"sharedHeaders":{"X-Service-Token":"demo-admin-key"}');

    const read = await postGraphQL<{ securityFramework: { title: string; controls: { controlId: string }[] } | null }>(
      url,
      { query: `{ securityFramework(organizationId: "1", id: "${frameworkId}") { title controls { controlId } } }` },
      { 'x-service-token': 'demo-admin-key' },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data).toEqual({ securityFramework: { title: 'Kept across restarts', controls: [{ controlId: 'K-1' }] } });

    second.child.kill('SIGINT');
    expect(await within(second.exited, 15_000, 'exit after SIGINT')).toEqual({ code: 0, signal: null });
    expect(second.output.stderr).toBe('');
  });
});

describe('npm start with UPSTREAM_URL: only the gateway', () => {
  let upstream: FaultUpstream;
  /** Answers of the upstream held back until the test lets them go. */
  const held: (() => void)[] = [];
  const hold: Behaviour = (req, res, body) => {
    held.push(() => json(200, EMPTY_LIST)(req, res, body));
  };

  beforeAll(async () => {
    upstream = await startFaultUpstream(json(200, EMPTY_LIST));
  });

  afterAll(async () => {
    held.splice(0).forEach((release) => release());
    await upstream?.close();
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'starts no reference service; on %s finishes the requests in flight, refuses new connections, exits 0',
    async (signal) => {
      const cwd = tempDir();
      upstream.setBehaviour(json(200, EMPTY_LIST));
      const run = start({ UPSTREAM_URL: upstream.url }, cwd);
      const { url, port } = await started(run);
      expect(run.output.stdout.trim().split('\n')).toEqual([
        expect.stringMatching(/^GraphQL gateway ready at http:\/\/localhost:\d+\/graphql$/),
        `Upstream v1 service: ${upstream.url}`,
        expect.stringMatching(/^Gateway version /),
      ]);
      expect(existsSync(join(cwd, 'data'))).toBe(false);
      expect((await fetch(new URL('/readyz', url))).status).toBe(200);

      upstream.calls.length = 0;
      upstream.setBehaviour(hold);
      const inFlight = Array.from({ length: 4 }, (_, i) =>
        postGraphQL<{ securityFrameworks: { totalCount: number } }>(
          url,
          { query: `{ securityFrameworks(organizationId: "${i + 1}") { totalCount } }` },
          { 'x-service-token': 'some-key' },
        ),
      );
      await waitFor(() => upstream.calls.length === 4, 'the four requests to reach the upstream');

      run.child.kill(signal);
      await waitFor(() => refused(port), 'new connections to be refused');
      expect(run.child.exitCode).toBeNull(); // still finishing the requests in flight

      held.splice(0).forEach((release) => release());
      const answers = await within(Promise.all(inFlight), 10_000, 'the requests in flight');
      expect(answers.map((answer) => [answer.status, answer.data])).toEqual(
        Array.from({ length: 4 }, () => [200, { securityFrameworks: { totalCount: 0 } }]),
      );
      expect(await within(run.exited, 15_000, `exit after ${signal}`)).toEqual({ code: 0, signal: null });
      expect(upstream.calls.map((call) => call.path).sort()).toEqual([1, 2, 3, 4].map((id) => `/api/v1/organizations/${id}/security-frameworks`));
    },
  );

  it('writes its JSON log lines to stdout: a quiet gateway within a fraction of a second, the last ones as it exits', async () => {
    upstream.setBehaviour(json(200, EMPTY_LIST));
    const run = start({ UPSTREAM_URL: upstream.url, LOG_LEVEL: 'info' }, tempDir());
    const { url } = await started(run);
    const answer = await postGraphQL(url, { query: '{ securityFrameworks(organizationId: "1") { totalCount } }' }, { 'x-service-token': 'some-key' });
    expect(answer.status).toBe(200);
    // pino writes to stdout asynchronously: the line comes a moment later, not when the process ends.
    await waitFor(() => run.output.stdout.includes('"msg":"graphql request"'), 'the request log line on stdout', 2_000);
    run.child.kill('SIGTERM');
    expect(await within(run.exited, 15_000, 'exit after SIGTERM')).toEqual({ code: 0, signal: null });
    // Logged just before the exit: pino flushes what is pending as the process exits.
    expect(run.output.stdout).toContain('"msg":"stopping: finishing requests in flight"');
    // The last line says the stop completed, with a level name and an ISO time.
    const last = JSON.parse(run.output.stdout.trim().split('\n').at(-1)!) as { level: string; time: string; msg: string; signal: string };
    expect(last).toMatchObject({ level: 'info', msg: 'stopped', signal: 'SIGTERM' });
    expect(last.time).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  });
});

describe('a bad setting', () => {
  const cases: [string, Record<string, string>][] = [
    ['PORT', { PORT: 'abc' }],
    ['UPSTREAM_URL', { UPSTREAM_URL: 'ftp://x' }],
    ['V1_SEED', { V1_SEED: 'bogus' }],
    ['V1_DATABASE', { V1_DATABASE: './not-a-folder/v1.sqlite' }], // a file where its folder should be
    ['BODY_LIMIT_BYTES', { BODY_LIMIT_BYTES: 'lots', UPSTREAM_URL: 'http://127.0.0.1:9' }],
    ['HOST', { HOST: '10.255.255.1', UPSTREAM_URL: 'http://127.0.0.1:9' }], // an address this machine does not have
  ];

  it(`stops the start with one line naming it and a non-zero exit (${cases.map(([name]) => name).join(', ')})`, async () => {
    // The refused starts run side by side: each is a process of its own in a directory of its own.
    const outcomes = await Promise.all(
      cases.map(async ([name, env]) => {
        const cwd = tempDir();
        writeFileSync(join(cwd, 'not-a-folder'), '');
        const run = start(env, cwd);
        const { code } = await within(run.exited, START_TIMEOUT_MS, `the refused start (${name}) to exit`);
        return { name, code, run, cwd };
      }),
    );
    for (const { name, code, run, cwd } of outcomes) {
      expect(code, name).toBe(1);
      const message = run.output.stderr.replace(/\n$/, '');
      expect(message, name).not.toContain('\n');
      expect(message.startsWith(`${name}: `), `${name}: ${message}`).toBe(true);
      expect(run.output.stdout, name).toBe('');
      // Nothing started: no database was made where the embedded default would have put it.
      expect(existsSync(join(cwd, 'data')), name).toBe(false);
    }
  });

  it('a PORT already taken stops the start with one line naming PORT', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const run = start({ PORT: String(port), UPSTREAM_URL: 'http://127.0.0.1:9' }, tempDir());
      const { code } = await within(run.exited, START_TIMEOUT_MS, 'the refused start to exit');
      expect(code).toBe(1);
      expect(run.output.stderr).toBe(`PORT: cannot listen on 127.0.0.1:${port} (EADDRINUSE)\n`);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});

describe("npm start's command", () => {
  it('is the build, then the bundle under plain node: no V8 flag, no environment of its own', () => {
    expect(startFlags()).toEqual([]);
    expect(startEnv()).toEqual({});
  });
});

/** The URL the gateway sends over IPC once it listens. */
async function readyOverIpc(run: Run): Promise<string> {
  const ready = await within(
    new Promise<unknown>((resolve, reject) => {
      run.child.once('message', resolve);
      run.child.once('exit', (code) => reject(new Error(`exited ${code} before ready; stderr: ${run.output.stderr}`)));
    }),
    START_TIMEOUT_MS,
    'the ready message',
  );
  expect(ready).toEqual({ type: 'ready', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/) });
  return (ready as { url: string }).url;
}

describe('npm start under a supervisor (IPC)', () => {

  it('says it is ready over IPC with its URL, answers with the demo key, and stops with exit 0 when the channel closes', async () => {
    const cwd = tempDir();
    // The default demo data (no seed sizes given), in memory: the embedded default as npm start runs it.
    const run = startSupervised({ V1_DATABASE: ':memory:', LANDING_PAGE: 'graphiql' }, cwd);
    const url = await readyOverIpc(run);
    // GraphiQL's page and files come from the build (dist/), not from a CDN.
    const landing = await fetch(url, { headers: { accept: 'text/html' } });
    expect(await landing.text()).toContain('/graphiql/start.js');
    for (const file of ['start.js', 'page.css', 'graphiql.min.js', 'react.production.min.js']) {
      expect((await fetch(new URL(`/graphiql/${file}`, url))).status, file).toBe(200);
    }
    // The message and the banner (on another pipe: it may come in a moment later) name the same gateway.
    const banner = `GraphQL gateway ready at http://localhost:${new URL(url).port}/graphql\n`;
    await waitFor(() => run.output.stdout.includes('Demo key'), `the banner (stdout: ${run.output.stdout})`);
    expect(run.output.stdout.startsWith(banner), run.output.stdout).toBe(true);
    expect(run.output.stdout).toContain('(database :memory:)');
    const v1Url = lineAfter(run.output.stdout, 'Embedded v1 reference service at ')?.split(' ')[0] ?? '';

    const response = await postGraphQL<{ protectionDevices: { totalCount: number; nodes: { id: string }[] } }>(
      url,
      { query: FIRST_QUERY },
      { 'x-service-token': 'demo-admin-key' },
    );
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
    const v1 = await fetch(`${v1Url}/api/v1/atb?limit=5`, { headers: { 'x-service-token': 'demo-admin-key' } });
    const page = (await v1.json()) as { total: number; data: { id: number }[] };
    expect(page.total).toBe(DEFAULT_SEED_SIZES.devices);
    expect(response.data?.protectionDevices.totalCount).toBe(DEFAULT_SEED_SIZES.devices);
    expect(response.data?.protectionDevices.nodes.map((node) => node.id)).toEqual(page.data.map((device) => String(device.id)));

    // Apollo's SHA-256 of each query, which the bundle makes with node's crypto in one call: an
    // automatic persisted query registers under its true hash and runs by it; a wrong one is refused.
    const headers = { 'x-service-token': 'demo-admin-key' };
    const persisted = { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(FIRST_QUERY).digest('hex') } };
    expect((await postGraphQL(url, { extensions: persisted }, headers)).errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await postGraphQL(url, { query: FIRST_QUERY, extensions: persisted }, headers)).data).toEqual(response.data);
    expect((await postGraphQL(url, { extensions: persisted }, headers)).data).toEqual(response.data);
    const wrong = { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(`${FIRST_QUERY} `).digest('hex') } };
    expect((await postGraphQL(url, { query: FIRST_QUERY, extensions: wrong }, headers)).errors?.[0]?.message).toContain('is not the SHA-256 of the query');

    // The supervisor goes away: the gateway must not outlive it holding the port.
    run.child.disconnect();
    expect(await within(run.exited, 15_000, 'exit after the IPC channel closed')).toEqual({ code: 0, signal: null });
    expect(run.output.stderr).toBe(SEEDING_IN_MEMORY);
    expect(await refused(Number(new URL(url).port))).toBe(true);
    // In memory: nothing written where the file database would have gone.
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });

  it("serves the schema of schema/*.graphql, and reports nothing to Apollo's cloud with Apollo's settings in the environment", async () => {
    // Usage and schema reporting stay off (executor/apollo-features-off.ts): a start that tried
    // to reach Apollo's cloud would say so on stderr.
    const apolloSettings = { APOLLO_KEY: 'service:gateway:not-a-key', APOLLO_GRAPH_REF: 'gateway@current', APOLLO_SCHEMA_REPORTING: 'true' };
    const run = startSupervised({ V1_DATABASE: ':memory:', ...apolloSettings }, tempDir());
    const url = await readyOverIpc(run);
    const introspection = await postGraphQL<IntrospectionQuery>(url, { query: getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, schemaDescription: true, directiveIsRepeatable: true, inputValueDeprecation: true }) }, { 'x-service-token': DEMO_ADMIN_KEY });
    expect(introspection.errors).toBeUndefined();
    const files = readdirSync(join(REPO, 'schema')).filter((name) => name.endsWith('.graphql'));
    expect(files.length).toBeGreaterThan(1);
    const sdl = buildASTSchema(concatAST(files.map((name) => parse(readFileSync(join(REPO, 'schema', name), 'utf8')))));
    expect(printSchema(buildClientSchema(introspection.data!))).toBe(printSchema(sdl));
    run.child.disconnect();
    expect(await within(run.exited, 15_000, 'exit after the IPC channel closed')).toEqual({ code: 0, signal: null });
    expect(run.output.stderr).toBe(SEEDING_IN_MEMORY);
  });

  it('answers a stream of 1,500 distinct operations in a heap of 128 MB: the caches they fill are bounded', async () => {
    const upstream = await startFaultUpstream(json(200, EMPTY_LIST));
    try {
      // npm start sets no heap cap (V8 sizes the heap from the memory it is given): this one makes
      // a cache that kept what it was given stop the process, out of memory.
      const run = startSupervised({ UPSTREAM_URL: upstream.url }, tempDir(), ['--max-old-space-size=128']);
      const url = await readyOverIpc(run);
      // A page of devices with their statistics, compiled, is a large object; 1,500 of them kept
      // would outgrow the heap, and a gateway whose caches were unbounded stopped, out of memory.
      const operation = (i: number) => `query Page${i} { page${i}: protectionDevices(first: 2) {
        totalCount nodes { id deviceId type email endpoint privateIp atbKey services organization { id name logo }
          check { status stat { vpn dnsbl iplist datetime } webStat { datetime wafProtection totalManagedRequests }
            chartStat { bucketStart bucketEnd totalRequests maliciousRequests } } } } }`;
      const failed: string[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < 1_500 && run.child.exitCode === null) {
            const i = next++;
            const answer = await postGraphQL<Record<string, { totalCount: number }>>(url, { query: operation(i) }, { 'x-service-token': 'some-key' }).catch(
              (error: unknown) => ({ status: 0, data: undefined, errors: [{ message: String(error) }] }),
            );
            if (answer.status !== 200 || answer.errors || answer.data?.[`page${i}`]?.totalCount !== 0) failed.push(`${i}: ${answer.status}`);
          }
        }),
      );
      expect(failed.slice(0, 5), run.output.stderr.slice(0, 500)).toEqual([]);
      expect(next).toBe(1_500);
      run.child.disconnect();
      expect(await within(run.exited, 15_000, 'exit after the IPC channel closed')).toEqual({ code: 0, signal: null });
    } finally {
      await upstream.close();
    }
  }, 120_000);

  it('exports its spans over OTLP: the tracing SDK, loaded only with an endpoint, works in the bundle as from the sources', async () => {
    const receiver = await startOtlpReceiver();
    try {
      // The embedded demo, in memory; spans sent every 100 ms.
      const run = startSupervised({ V1_DATABASE: ':memory:', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '100' }, tempDir());
      const url = await readyOverIpc(run);
      const response = await postGraphQL<{ protectionDevices: { totalCount: number } }>(url, { query: FIRST_QUERY }, { 'x-service-token': DEMO_ADMIN_KEY });
      expect(response.status).toBe(200);
      const spans = await receiver.waitFor(2, (span) => span.kind === 2 || span.kind === 3, 10_000);
      const operation = spans.find((span) => span.kind === 2)!;
      expect(operation.attributes['graphql.operation.name']).toBe('FirstLook');
      expect(spans.some((span) => span.kind === 3 && span.parentSpanId === operation.spanId)).toBe(true);
      run.child.disconnect();
      expect(await within(run.exited, 15_000, 'exit after the IPC channel closed')).toEqual({ code: 0, signal: null });
    } finally {
      await receiver.close();
    }
  }, 60_000);
});

describe("npm start's build", () => {
  /** A checkout of its own (tracked files, the installed packages linked): its build is this test's. */
  function checkout(): string {
    const dir = tempDir();
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: REPO, encoding: 'utf8' })
      .split('\0')
      .filter((file) => file !== '' && !file.startsWith('test/') && !file.startsWith('docs/'));
    for (const file of files) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      copyFileSync(join(REPO, file), join(dir, file));
    }
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
    return dir;
  }

  /** `npm start` as typed in `dir`, in front of `upstreamUrl`. */
  function npmStart(dir: string, upstreamUrl: string): Run {
    const child = spawn('npm', ['start', '--silent'], { cwd: dir, env: commandEnv({ UPSTREAM_URL: upstreamUrl }, dir), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    return track(child);
  }

  async function stopped(run: Run): Promise<void> {
    // npm's child is the gateway: the signal goes to the process group npm leads.
    process.kill(-run.child.pid!, 'SIGTERM');
    await within(run.exited, 15_000, 'npm start to exit after SIGTERM');
  }

  it('two starts at once in one checkout build once and both come up; a start after them builds nothing', async () => {
    const upstream = await startFaultUpstream(json(200, EMPTY_LIST));
    try {
      const dir = checkout();
      const both = [npmStart(dir, upstream.url), npmStart(dir, upstream.url)];
      const urls = await Promise.all(both.map(async (run) => (await started(run)).url));
      for (const url of urls) {
        const answer = await postGraphQL<{ securityFrameworks: { totalCount: number } }>(url, { query: '{ securityFrameworks(organizationId: "1") { totalCount } }' }, { 'x-service-token': 'some-key' });
        expect(answer.data).toEqual({ securityFrameworks: { totalCount: 0 } });
      }
      // The one that took the build's lock says it builds; the other waited for it.
      const building = both.filter((run) => run.output.stderr.includes('building'));
      expect(building, both.map((run) => run.output.stderr).join('\n')).toHaveLength(1);
      await Promise.all(both.map(stopped));

      const bundle = statSync(join(dir, 'dist', 'main.js')).mtimeMs;
      const again = npmStart(dir, upstream.url);
      await started(again);
      expect(again.output.stderr).toBe('');
      expect(statSync(join(dir, 'dist', 'main.js')).mtimeMs).toBe(bundle);
      await stopped(again);

      // A changed source is built again before the start.
      const main = join(dir, 'src', 'main.ts');
      writeFileSync(main, `${readFileSync(main, 'utf8')}\n`);
      const changed = npmStart(dir, upstream.url);
      await started(changed);
      expect(changed.output.stderr).toContain('building');
      expect(statSync(join(dir, 'dist', 'main.js')).mtimeMs).toBeGreaterThan(bundle);
      await stopped(changed);
    } finally {
      await upstream.close();
    }
  }, 120_000);
});
