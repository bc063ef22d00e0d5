// A real PostgreSQL for tests: Debian's server (initdb and postgres from /usr/lib/postgresql/<n>/bin)
// initialized in a temporary folder and started on a free loopback port, no durability (fsync off),
// password authentication over TCP. PostgreSQL refuses to run as root: under root (CI) the folder
// is handed to the `postgres` user and the server runs as that user. Where the server is not
// installed the PostgreSQL suites are skipped with one line saying how to install it, unless
// REQUIRE_POSTGRES=1 (CI sets it) makes its absence a failure.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const ROOT = '/usr/lib/postgresql';
/** The superuser the tests connect as, and its password (a throwaway server on loopback). */
export const PG_USER = 'v1test';
export const PG_PASSWORD = 'v1-test-password-4711';

/** The newest installed server's bin folder, if any. */
function binDir(): string | undefined {
  if (!existsSync(ROOT)) return undefined;
  const versions = readdirSync(ROOT)
    .filter((name) => existsSync(join(ROOT, name, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(ROOT, versions[0], 'bin');
}

/** Whether the PostgreSQL suites can run here; prints the one line when they cannot. */
export function postgresAvailable(): boolean {
  if (binDir() !== undefined) return true;
  if (process.env.REQUIRE_POSTGRES === '1') throw new Error('PostgreSQL is missing and REQUIRE_POSTGRES=1: apt-get install -y postgresql');
  process.stdout.write('PostgreSQL suites skipped: the server is not installed (apt-get install -y postgresql)\n');
  return false;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Under root, the uid and gid of the `postgres` user to run the server as. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('running as root, and there is no postgres user to run the server as');
  return { uid, gid };
}

export interface TestPostgres {
  port: number;
  /** A superuser URL of the `postgres` database. */
  adminUrl: string;
  /** Creates an empty database and returns its URL (as V1_DATABASE takes it). */
  createDatabase(name?: string): Promise<string>;
  close(): Promise<void>;
}

let databases = 0;

export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  if (bin === undefined) throw new Error('PostgreSQL is not installed');
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'v1-pg-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${PG_PASSWORD}\n`);
  if (user) {
    chownSync(dir, user.uid, user.gid);
    chownSync(pwfile, user.uid, user.gid);
  }
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  const init = spawnSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', PG_USER, `--pwfile=${pwfile}`, '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'],
    { ...as, encoding: 'utf8', cwd: dir },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const child: ChildProcess = spawn(
    join(bin, 'postgres'),
    [
      '-D', data, '-p', String(port), '-k', dir,
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
      '-c', 'max_connections=200', '-c', 'shared_buffers=128MB',
    ],
    { ...as, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`postgres did not start on ${port}: ${output}`)), 30_000);
    const read = (chunk: string) => {
      output += chunk;
      if (output.includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.setEncoding('utf8').on('data', read);
    child.stderr!.setEncoding('utf8').on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`postgres exited (${code}): ${output}`));
    });
  });
  const base = `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}`;
  const adminUrl = `${base}/postgres`;
  return {
    port,
    adminUrl,
    async createDatabase(name = `v1_${process.pid}_${++databases}`) {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      } finally {
        await client.end();
      }
      return `${base}/${name}`;
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        // Immediate shutdown: nothing here needs to survive.
        child.kill('SIGQUIT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
