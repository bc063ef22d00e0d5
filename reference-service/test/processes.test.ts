// Several service processes on one database, started at once on an empty one: SQLite (one file)
// and PostgreSQL (one database on Debian's server). One migration and one seeding between them, a
// write through one seen at once through another, and concurrent edits of one framework through
// all of them leave one whole version.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, startPostgres, type TestPostgres } from './helpers/postgres.ts';
import { v1Request } from './helpers/v1.ts';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const ADMIN = 'processes-admin-key';
const PROCESSES = 3;
const EDITS = 100;

interface Started {
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

/** One `src/main.ts` process; resolves once it listens. */
function startProcess(database: string): Promise<Started> {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, 'src/main.ts'], {
    cwd: PACKAGE,
    env: {
      ...process.env,
      V1_DATABASE: database,
      V1_PORT: '0',
      V1_SEED: 'demo',
      V1_SEED_DEVICES: '8',
      V1_SEED_TRAFFIC: '3000',
      V1_API_KEYS: `${ADMIN}=*`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (url) resolve({ url, child, stderr: () => stderr });
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function controlsOf(version: number) {
  return [1, 2, 3].map((n) => ({
    id: `v${version}-c${n}`,
    type: 'policy',
    title: `Control ${n} of version ${version}`,
    weight: n,
    details: { version },
    frequency: '0 9 * * 1',
    description: `version ${version}`,
    evidence_type: 'document',
  }));
}

/** Whether a framework is one whole version: its title and every control from the same edit. */
function wholeVersion(framework: { title: string; security_frameworks: { id: string; description: string }[] }): number | undefined {
  const version = /^Version (\d+)$/.exec(framework.title)?.[1];
  if (version === undefined) return undefined;
  const ids = framework.security_frameworks.map((c) => c.id);
  const expected = controlsOf(Number(version)).map((c) => c.id);
  return JSON.stringify(ids) === JSON.stringify(expected) ? Number(version) : undefined;
}

const stores: { name: string; database: () => Promise<string>; available: () => boolean }[] = [];
let postgres: TestPostgres | undefined;
let folder: string;

stores.push({ name: 'SQLite (one file)', database: async () => join(folder, `v1-${Date.now()}.sqlite`), available: () => true });
const withPostgres = postgresAvailable();
stores.push({ name: 'PostgreSQL (one database)', database: () => postgres!.createDatabase(), available: () => withPostgres });

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'v1-processes-'));
  if (withPostgres) postgres = await startPostgres();
});
afterAll(async () => {
  await postgres?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe.each(stores)('$name: three processes started at once on an empty database', (store) => {
  it.skipIf(!store.available())('migrate and seed once, see each other\'s writes, and keep edits whole', async () => {
    const database = await store.database();
    const processes = await Promise.all(Array.from({ length: PROCESSES }, () => startProcess(database)));
    try {
      const logs = processes.map((p) => p.stderr()).join('');
      // One seeding between them (each prints the demo keys it finds, none fails).
      expect(logs.match(/seeded the demo data/g) ?? []).toHaveLength(1);
      if (store.name.startsWith('PostgreSQL')) expect(logs.match(/migrated the PostgreSQL schema/g) ?? []).toHaveLength(1);
      const [a, b, c] = processes as [Started, Started, Started];
      const devices = await Promise.all(processes.map((p) => v1Request(p, 'GET', '/api/v1/atb?limit=500', { token: ADMIN })));
      for (const answer of devices) expect(answer.body).toBe(devices[0]!.body);
      expect(devices[0]!.json.total).toBe(8);

      // A write through one process is read at once through another.
      const created = await v1Request(a, 'POST', '/api/v1/V-Ciso/security-frameworks?organization=2', {
        token: ADMIN,
        body: { title: 'Version 0', security_frameworks: controlsOf(0) },
      });
      expect(created.status).toBe(201);
      const id = created.json.security_framework as number;
      const listed = await v1Request(b, 'GET', '/api/v1/organizations/2/security-frameworks', { token: ADMIN });
      expect(listed.json.data.map((f: { id: number }) => f.id)).toContain(id);

      // Concurrent edits through all three: each answer is a whole version, and so is the end.
      const answers = await Promise.all(
        Array.from({ length: EDITS }, (_, i) =>
          v1Request(processes[i % PROCESSES]!, 'PUT', `/api/v1/organizations/2/security-frameworks/${id}`, {
            token: ADMIN,
            body: { title: `Version ${i + 1}`, security_frameworks: controlsOf(i + 1) },
          }),
        ),
      );
      for (const [i, answer] of answers.entries()) {
        expect(answer.status).toBe(200);
        expect(wholeVersion(answer.json.security_framework)).toBe(i + 1);
      }
      const finals = await Promise.all(processes.map((p) => v1Request(p, 'GET', '/api/v1/organizations/2/security-frameworks', { token: ADMIN })));
      for (const final of finals) expect(final.body).toBe(finals[0]!.body);
      const framework = finals[0]!.json.data.find((f: { id: number }) => f.id === id);
      expect(wholeVersion(framework)).toBeGreaterThanOrEqual(1);
      void c;
    } finally {
      await Promise.all(processes.map((p) => stop(p.child)));
    }
  }, 120_000);
});
