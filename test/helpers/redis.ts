// A real Redis for tests: Debian's `redis-server` on a free loopback port, no persistence, killed
// and started again on the same port when a test needs Redis to fail and come back. Where it is not
// installed the Redis suites are skipped with one line saying how to install it, unless
// REQUIRE_REDIS=1 (CI sets it) makes its absence a failure.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';

export const REDIS_SERVER = 'redis-server';

/** Whether the Redis suites can run here; prints the one line when they cannot. */
export function redisAvailable(): boolean {
  const found = spawnSync('sh', ['-c', `command -v ${REDIS_SERVER}`]).status === 0;
  if (found) return true;
  if (process.env.REQUIRE_REDIS === '1') throw new Error(`${REDIS_SERVER} is missing and REQUIRE_REDIS=1: apt-get install -y redis-server`);
  process.stdout.write(`Redis suites skipped: ${REDIS_SERVER} is not installed (apt-get install -y redis-server)\n`);
  return false;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface TestRedis {
  url: string;
  port: number;
  /** Kills the server at once (SIGKILL): every connection drops. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

async function launch(port: number): Promise<ChildProcess> {
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on ${port}: ${output}`)), 10_000);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}): ${output}`));
    });
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return child;
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child = await launch(port);
  const kill = async () => {
    const done = stopped(child);
    child.kill('SIGKILL');
    await done;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    async restart() {
      await kill();
      child = await launch(port);
    },
    close: kill,
  };
}
