// The Dockerfile's runtime stage, run as the image would run it, where no container engine is
// available: its COPY lines assemble a clean folder from the build (the bundles `npm start`
// builds, and node_modules pruned to the production dependencies of package-lock.json, as
// `npm prune --omit=dev` leaves them), its ENV and WORKDIR set the process up, and its CMD (exec
// form) starts it. The gateway must start from that folder alone, in front of an upstream and as
// the embedded demo, answer its HEALTHCHECK command, and stop on SIGTERM with its last line.
// (HOST stays on loopback here: the image's 0.0.0.0 is checked as written, not bound on a shared
// machine; PORT is a free port.)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/start-command.ts';
import { startTestV1, TEST_KEYS, type TestV1 } from '../helpers/v1.ts';

interface Stage {
  env: Record<string, string>;
  workdir: string;
  copies: { sources: string[]; dest: string }[];
  runs: string[];
  user?: string;
  healthcheck: string[];
  cmd: string[];
}

/** The Dockerfile's last stage, as its instructions say (continuation lines joined). */
function runtimeStage(): Stage {
  const text = readFileSync(join(REPO, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  const lines = text.split('\n').filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  const last = lines.map((line, i) => (/^FROM /.test(line) ? i : -1)).filter((i) => i >= 0).at(-1)!;
  const stage: Stage = { env: {}, workdir: '/', copies: [], runs: [], healthcheck: [], cmd: [] };
  for (const line of lines.slice(last + 1)) {
    const [instruction, ...rest] = line.trim().split(/\s+/);
    const args = rest.join(' ');
    if (instruction === 'ENV') for (const pair of rest) stage.env[pair.split('=')[0]!] = pair.split('=').slice(1).join('=');
    if (instruction === 'WORKDIR') stage.workdir = args;
    if (instruction === 'USER') stage.user = args;
    if (instruction === 'RUN') stage.runs.push(args);
    if (instruction === 'CMD') stage.cmd = JSON.parse(args) as string[];
    if (instruction === 'HEALTHCHECK') stage.healthcheck = JSON.parse(args.slice(args.indexOf('CMD ') + 4)) as string[];
    if (instruction === 'COPY') {
      const paths = rest.filter((part) => !part.startsWith('--'));
      expect(rest[0], line).toBe('--from=build');
      stage.copies.push({ sources: paths.slice(0, -1), dest: paths.at(-1)! });
    }
  }
  return stage;
}

/** Hard links of a tree's files (read only here), without its nested node_modules. */
function linkTree(from: string, to: string): void {
  const stat = lstatSync(from);
  if (stat.isSymbolicLink()) return;
  if (!stat.isDirectory()) {
    mkdirSync(dirname(to), { recursive: true });
    return linkSync(from, to);
  }
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) if (name !== 'node_modules') linkTree(join(from, name), join(to, name));
}

/** node_modules as `npm prune --omit=dev` leaves it: the lock file's entries that are not dev-only. */
function productionNodeModules(into: string): void {
  const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; link?: boolean; resolved?: string }> };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith('node_modules/') || entry.dev || !existsSync(join(REPO, path))) continue;
    const target = join(into, path.slice('node_modules/'.length));
    if (entry.link) {
      mkdirSync(dirname(target), { recursive: true });
      symlinkSync(join('..', entry.resolved!), target);
    } else linkTree(join(REPO, path), target);
  }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe("the Dockerfile's runtime stage, run from a clean folder with production dependencies only", () => {
  const root = mkdtempSync(join(tmpdir(), 'image-'));
  const app = join(root, 'app');
  const stage = runtimeStage();
  let v1: TestV1;
  /** An image path (/app/…) in the clean folder. */
  const inImage = (path: string) => join(root, path.replace(/^\//, ''));

  beforeAll(async () => {
    for (const { sources, dest } of stage.copies) {
      const to = dest.startsWith('/') ? inImage(dest) : join(inImage(stage.workdir), dest);
      for (const source of sources) {
        const relative = source.replace(/^\/app\//, '');
        // The build stage's node_modules after its `npm prune --omit=dev`.
        if (relative === 'node_modules') {
          productionNodeModules(to);
          continue;
        }
        const from = join(REPO, relative);
        const intoFolder = sources.length > 1 || dest.endsWith('/');
        if (statSync(from).isDirectory()) linkTree(from, to);
        else linkTree(from, intoFolder ? join(to, basename(from)) : to);
      }
    }
    for (const run of stage.runs) {
      const made = /^mkdir -p (\S+)/.exec(run);
      if (made) mkdirSync(inImage(made[1]!), { recursive: true });
    }
    v1 = await startTestV1({ seed: 'demo' });
  }, 120_000);

  afterAll(async () => {
    await v1?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('is written as a container wants it: production mode, all interfaces, not root, exec-form CMD and health check', () => {
    expect(stage.env).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0', MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' });
    expect(stage.user).toBe('node');
    expect(stage.cmd).toEqual(['node', 'dist/main.js']);
    expect(stage.healthcheck[0]).toBe('node');
    expect(readFileSync(join(REPO, 'Dockerfile'), 'utf8')).toMatch(/^FROM \S+ AS build$/m);
  });

  it('holds the production dependencies only', () => {
    const modules = join(app, 'node_modules');
    for (const needed of ['@apollo/server', 'graphql', 'pino', 'better-sqlite3', 'graphiql', 'reference-service']) expect(existsSync(join(modules, needed)), needed).toBe(true);
    for (const dev of ['vitest', 'typescript', 'esbuild', 'tsx', '@apollo/client', 'puppeteer-core']) expect(existsSync(join(modules, dev)), dev).toBe(false);
    expect(existsSync(join(app, 'src', 'gateway', 'server.ts'))).toBe(false);
  });

  async function runImage(extraEnv: Record<string, string>) {
    const port = await freePort();
    const env = { PATH: process.env.PATH ?? '', ...stage.env, HOST: '127.0.0.1', PORT: String(port), ...extraEnv };
    const child = spawn(stage.cmd[0] === 'node' ? process.execPath : stage.cmd[0]!, stage.cmd.slice(1), { cwd: inImage(stage.workdir), env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = { stdout: '', stderr: '' };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    while (!output.stdout.includes('GraphQL gateway ready at')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no banner: ${output.stdout} ${output.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const healthcheck = spawnSync(stage.healthcheck[0] === 'node' ? process.execPath : stage.healthcheck[0]!, stage.healthcheck.slice(1), { env, timeout: 10_000 });
    const answer = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': extraEnv.UPSTREAM_URL ? TEST_KEYS.admin : 'demo-admin-key' },
      body: JSON.stringify({ query: '{ protectionDevices(first: 2) { totalCount nodes { id } } }' }),
    });
    const body = (await answer.json()) as { data?: { protectionDevices: { nodes: unknown[] } } };
    child.kill('SIGTERM');
    const code = await exited;
    return { healthcheck: healthcheck.status, status: answer.status, body, code, output };
  }

  it('serves in front of an upstream: answers, passes its health check, stops on SIGTERM with its last line', async () => {
    const run = await runImage({ UPSTREAM_URL: v1.url });
    expect(run.healthcheck, run.output.stderr).toBe(0);
    expect(run.status).toBe(200);
    expect(run.body.data?.protectionDevices.nodes).toHaveLength(2);
    expect(run.code).toBe(0);
    const last = JSON.parse(run.output.stdout.trim().split('\n').at(-1)!) as { msg: string; level: string };
    expect(last).toMatchObject({ msg: 'stopped', level: 'info' });
    expect(run.output.stdout).toMatch(/Gateway version \d+\.\d+\.\d+ \(commit [0-9a-f]+, built /);
  }, 90_000);

  it('runs the embedded demo from the image too (better-sqlite3 and the migrations are in it), its data under /app/data', async () => {
    const run = await runImage({ V1_SEED_DEVICES: '5', V1_SEED_TRAFFIC: '50' });
    expect(run.healthcheck).toBe(0);
    expect(run.body.data?.protectionDevices.nodes).toHaveLength(2);
    expect(run.code).toBe(0);
    expect(existsSync(join(app, 'data', 'v1.sqlite'))).toBe(true);
  }, 90_000);
});
