// Starting on PostgreSQL when it cannot work: a bad URL, an unreachable server, wrong credentials
// or a URL of another scheme stop the command with one line naming V1_DATABASE, never the
// password; a good URL starts it.
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_PASSWORD, PG_USER, postgresAvailable, startPostgres, type TestPostgres } from './helpers/postgres.ts';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const SECRET = 'not-the-Password-93';

function run(database: string, untilListening = false) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', TSX_LOADER, 'src/main.ts'], {
      cwd: PACKAGE,
      env: { ...process.env, V1_DATABASE: database, V1_PORT: '0', V1_SEED: 'none' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const url = untilListening ? /listening on (http:\/\/\S+)/.exec(stdout)?.[1] : undefined;
      // Answering (401 without a key), then stopped.
      if (url) void fetch(`${url}/api/v1/atb`).finally(() => child.kill('SIGTERM'));
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function expectOneLine(result: { code: number | null; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(result.stderr).toMatch(/V1_DATABASE: /);
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr).not.toContain(SECRET);
  expect(result.stderr).not.toContain(PG_PASSWORD);
}

describe('the command on a V1_DATABASE it cannot use', () => {
  it('a URL of another scheme: not taken for a file path', async () => {
    expectOneLine(await run(`mysql://root:${SECRET}@127.0.0.1/v1`), /scheme "mysql" is not supported/);
  });

  it('a malformed postgres URL', async () => {
    expectOneLine(await run(`postgres://v1:${SECRET}@127.0.0.1:port/v1`), /not a valid postgres:\/\/ URL/);
  });

  it('an unreachable server', async () => {
    const port = await closedPort();
    expectOneLine(await run(`postgresql://v1:${SECRET}@127.0.0.1:${port}/v1`), new RegExp(`cannot reach the PostgreSQL server at v1@127\\.0\\.0\\.1:${port}/v1`));
  });
});

const available = postgresAvailable();
let postgres: TestPostgres | undefined;
beforeAll(async () => {
  if (available) postgres = await startPostgres();
});
afterAll(async () => {
  await postgres?.close();
});

describe.skipIf(!available)('the command on a running PostgreSQL', () => {
  it('wrong credentials', async () => {
    const url = new URL(await postgres!.createDatabase());
    url.password = SECRET;
    expectOneLine(await run(url.href), /refused the credentials/);
  });

  it('a database that does not exist', async () => {
    expectOneLine(await run(`postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${postgres!.port}/nowhere`), /does not exist/);
  });

  it('a good URL: migrates, listens and stops cleanly', async () => {
    const { code, stdout, stderr } = await run(await postgres!.createDatabase(), true);
    expect(stdout).toMatch(/^v1 service listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    expect(stderr).toMatch(/migrated the PostgreSQL schema: 001_schema\.sql/);
    expect(stderr).not.toContain(PG_PASSWORD);
    expect(code).toBe(0);
  });
});
