// Every stop ends, and nothing blocks the event loop: the command (the bundle npm start runs)
// whose stdout reader stalls keeps answering and drops (and counts) log lines rather than freeze;
// a stop ends within STOP_TIMEOUT_MS whatever hangs; with GATEWAY_WORKERS, SIGTERM to the primary
// drains the workers while clients keep their connections alive and keep sending.
import { spawn, type ChildProcess } from 'node:child_process';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultUpstream, type FaultUpstream } from '../helpers/fault-upstream.ts';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.ts';
import { BUNDLE, startEnv, startFlags } from '../helpers/start-command.ts';

const QUERY = JSON.stringify({ query: '{ protectionDevices(first: 1) { totalCount } }' });
const KEY = 'stops-test-key';

let upstream: FaultUpstream;
let redis: TestRedis | undefined;
const children: ChildProcess[] = [];

beforeAll(async () => {
  upstream = await startFaultUpstream();
  if (redisAvailable()) redis = await startRedis();
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await upstream?.close();
  await redis?.close();
});

interface Started {
  child: ChildProcess;
  origin: string;
  exited: Promise<{ code: number | null; at: number }>;
  stderr(): string;
}

/** Starts the command; reads its stdout up to the banner, and then (with `stallStdout`) never again. */
async function startCommand(env: Record<string, string>, stallStdout: boolean): Promise<Started> {
  const child = spawn(process.execPath, [...startFlags(), BUNDLE], {
    env: { ...startEnv(), PATH: process.env.PATH ?? '', PORT: '0', UPSTREAM_URL: upstream.url, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  const onStdout = (chunk: string) => (stdout += chunk);
  child.stdout!.setEncoding('utf8').on('data', onStdout);
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: performance.now() })));
  const until = Date.now() + 60_000;
  while (!/GraphQL gateway ready at (\S+)/.test(stdout)) {
    if (Date.now() > until || child.exitCode !== null) throw new Error(`no start: ${stdout} ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  if (stallStdout) {
    child.stdout!.off('data', onStdout);
    child.stdout!.pause();
  }
  const url = new URL(/GraphQL gateway ready at (\S+)/.exec(stdout)![1]!);
  url.hostname = '127.0.0.1';
  return { child, origin: url.origin, exited, stderr: () => stderr };
}

async function timed<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a stalled log reader', () => {
  it('blocks nothing: requests are answered, lines are dropped and counted, and SIGTERM ends the command', async () => {
    const started = await startCommand({ LOG_LEVEL: 'debug', STOP_TIMEOUT_MS: '5000' }, true);
    const pool = new Pool(started.origin, { connections: 8 });
    try {
      // Far more log lines than a pipe holds (64 KiB) and the gateway buffers (4 MiB): every
      // request logs a line or more.
      const send = async () => {
        const response = await pool.request({ path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json', 'x-service-token': KEY }, body: QUERY });
        await response.body.dump();
        return response.statusCode;
      };
      const droppedLines = async () => Number(/^log_lines_dropped_total (\d+)/m.exec(await (await fetch(`${started.origin}/metrics`)).text())?.[1] ?? 0);
      // Until lines are dropped (the pipe and the buffer are full), then as many rounds again:
      // the gateway goes on answering while it drops. At most 400 rounds in all.
      let droppedFrom: number | undefined;
      for (let round = 0; round < 400 && (droppedFrom === undefined || round < droppedFrom * 2 + 10); round++) {
        const statuses = await timed(Promise.all(Array.from({ length: 40 }, send)), 10_000);
        expect(statuses, `round ${round}: the gateway stopped answering`).not.toBe('timeout');
        if (droppedFrom === undefined && round % 5 === 4 && (await droppedLines()) > 0) droppedFrom = round;
      }
      const health = await timed(fetch(`${started.origin}/healthz`), 5_000);
      expect(health === 'timeout' ? 'timeout' : health.status).toBe(200);
      expect(droppedFrom, 'no log line was dropped in 400 rounds').toBeDefined();
      expect(await droppedLines()).toBeGreaterThan(0);
    } finally {
      await pool.destroy();
    }
    const signalledAt = performance.now();
    started.child.kill('SIGTERM');
    const exit = await timed(started.exited, 15_000);
    expect(exit, 'the command did not exit after SIGTERM').not.toBe('timeout');
    expect((exit as { at: number }).at - signalledAt).toBeLessThan(15_000);
  }, 240_000);
});

describe('SIGTERM with GATEWAY_WORKERS', () => {
  it.runIf(redisAvailable())('drains the workers while clients keep their connections alive and keep sending', async () => {
    const started = await startCommand({ GATEWAY_WORKERS: '2', REDIS_URL: redis!.url, LOG_LEVEL: 'warn', STOP_TIMEOUT_MS: '15000' }, false);
    const pool = new Pool(started.origin, { connections: 6, keepAliveTimeout: 60_000 });
    let signalledAt = 0;
    let exited = false;
    void started.exited.then(() => (exited = true));
    const afterSignal = { closeHeaders: 0, refused: 0, answered: 0 };
    const client = async () => {
      // Endless keep-alive traffic, bounded: until the command is gone, at most 60 s.
      const until = performance.now() + 60_000;
      while (!exited && performance.now() < until) {
        try {
          const response = await pool.request({ path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json', 'x-service-token': KEY }, body: QUERY });
          await response.body.dump();
          if (signalledAt > 0) {
            afterSignal.answered += 1;
            if (response.headers.connection === 'close') afterSignal.closeHeaders += 1;
            if (response.statusCode === 503) afterSignal.refused += 1;
          }
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    };
    const clients = Array.from({ length: 6 }, () => client());
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    signalledAt = performance.now();
    started.child.kill('SIGTERM');
    const exit = await timed(started.exited, 20_000);
    await Promise.all(clients);
    await pool.destroy();
    expect(exit, `the command still ran 20 s after SIGTERM; after it: ${JSON.stringify(afterSignal)}`).not.toBe('timeout');
    const { code, at } = exit as { code: number | null; at: number };
    expect(code).toBe(0);
    // Well within the drain deadline: kept-alive connections were told to close, not served on.
    expect(at - signalledAt).toBeLessThan(12_000);
    expect(afterSignal.closeHeaders + afterSignal.refused).toBeGreaterThan(0);
  }, 120_000);
});
