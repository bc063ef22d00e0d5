// The reference service's search and export on a million entries of one device, on each store:
// SQLite (one file) and PostgreSQL (Debian's server, started here in a temporary folder). Each
// store is seeded with the same demo data by the service's own command (the built bundle, as
// `npm run v1` runs it), then measured as `npm run bench` measures the reference service
// (reference-figures.ts): one two-term search page of 10 at a time, then the CSV and NDJSON
// exports streamed and counted while the service's memory is sampled.
//
//   node scripts/build.mjs reference-service && tsx --conditions=source test/bench/stores.ts
//
// Then each search of short terms (a term of two characters, an address, a one-character term)
// on its own, one request at a time: the searches an index of trigrams cannot serve as it serves
// longer terms.
//
// Knobs: BENCH_HOT_TRAFFIC (entries on device 1, default 1,000,000), BENCH_SEARCHES as for the
// bench, BENCH_SHORT_SEARCHES (comma-separated), BENCH_STORES (`sqlite,postgres`),
// BENCH_POSTGRES_URL (a database already seeded with these sizes, reused instead of a server
// started here). Prints Markdown tables; nothing is written to docs/.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres, type TestPostgres } from '../../reference-service/test/helpers/postgres.ts';
import { percentile } from './load.ts';
import { measureReferenceFigures, type ReferenceFigures } from './reference-figures.ts';
import { V1Failure, v1Get } from './stack.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const KEY = 'demo-admin-key';
const HOT = Number(process.env.BENCH_HOT_TRAFFIC ?? 1_000_000);
const SEARCHES = (process.env.BENCH_SEARCHES ?? '203.0.113 sqlmap,198.51.100 wp-login,203.0.113 nikto,192.0.2 sqlmap,198.51.100 passwd,POST 203.0.113')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const SHORT_SEARCHES = (process.env.BENCH_SHORT_SEARCHES ?? 'zq,qz,xj,22,80,10.0.0.1,a')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',');

interface ShortSearch {
  search: string;
  /** The search's total, or the status of its refusal. */
  matches: number | { refused: number };
  samples: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * One search asked alone, one request at a time (a page of 10 and its total), after one warm-up:
 * for up to 5 s, at least 5 times (a search of a term in most entries takes seconds).
 */
async function measureShortSearch(v1Url: string, search: string): Promise<ShortSearch> {
  const url = `${v1Url}/api/v1/atb/1/traffic?search=${encodeURIComponent(search)}&limit=10`;
  const ask = async (): Promise<number | { refused: number }> => {
    try {
      return (await v1Get<{ total: number }>(url, KEY)).total;
    } catch (error) {
      if (error instanceof V1Failure && error.status === 400) return { refused: error.status };
      throw error;
    }
  };
  const matches = await ask();
  const times: number[] = [];
  const until = performance.now() + 5000;
  while (times.length < 5 || (performance.now() < until && times.length < 200)) {
    const started = performance.now();
    await ask();
    times.push(performance.now() - started);
  }
  const sorted = Float64Array.from(times).sort();
  return { search, matches, samples: times.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
}

interface Started {
  child: ChildProcess;
  url: string;
  seededS: number;
}

/** The service's command on `database`, seeded on first start; resolves once it listens. */
function startService(database: string): Promise<Started> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--max-old-space-size=512', join(ROOT, 'reference-service/dist/main.js')], {
    env: {
      ...process.env,
      V1_DATABASE: database,
      V1_PORT: '0',
      V1_SEED: 'demo',
      V1_SEED_DEVICES: '60',
      V1_SEED_TRAFFIC: '20000',
      V1_SEED_HOT_TRAFFIC: String(HOT),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (url) resolve({ child, url, seededS: (performance.now() - started) / 1000 });
    });
    child.once('exit', (code) => reject(new Error(`the service exited (${code})`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const folder = mkdtempSync(join(tmpdir(), 'v1-stores-bench-'));
let postgres: TestPostgres | undefined;
const results: { store: string; seededS: number; figures: ReferenceFigures; short: ShortSearch[] }[] = [];
try {
  for (const store of STORES) {
    let database: string;
    if (store === 'postgres' && process.env.BENCH_POSTGRES_URL) {
      database = process.env.BENCH_POSTGRES_URL;
    } else if (store === 'postgres') {
      postgres = await startPostgres();
      database = await postgres.createDatabase('v1_bench');
    } else {
      database = join(folder, 'v1.sqlite');
    }
    process.stdout.write(`${store}: seeding ${HOT.toLocaleString('en')} entries on device 1 (and 20,000 on 60 devices)…\n`);
    const service = await startService(database);
    try {
      process.stdout.write(`${store}: seeded and listening in ${service.seededS.toFixed(1)} s; measuring…\n`);
      const figures = await measureReferenceFigures({ v1Url: service.url, v1Pid: service.child.pid!, key: KEY, deviceId: '1', searches: SEARCHES, durationS: 10 });
      const short: ShortSearch[] = [];
      for (const search of SHORT_SEARCHES) short.push(await measureShortSearch(service.url, search));
      results.push({ store, seededS: service.seededS, figures, short });
    } finally {
      await stop(service.child);
    }
  }
} finally {
  await postgres?.close();
  rmSync(folder, { recursive: true, force: true });
}

const f = (n: number, digits = 1) => n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });
process.stdout.write(
  [
    '',
    `| store | entries on device 1 | seed + start, s | search p50 / p99, ms (median matches) | CSV export rows/s (RSS growth, MB) | NDJSON export rows/s (RSS growth, MB) |`,
    `|---|---|---|---|---|---|`,
    ...results.map(
      ({ store, seededS, figures: r }) =>
        `| ${store} | ${r.entries.toLocaleString('en')} | ${f(seededS)} | ${f(r.search.p50Ms, 2)} / ${f(r.search.p99Ms, 2)} (${r.search.medianMatches}) | ${f(r.exports.csv.rowsPerSecond, 0)} (+${f(r.exports.csv.peakGrowthMB)}) | ${f(r.exports.ndjson.rowsPerSecond, 0)} (+${f(r.exports.ndjson.peakGrowthMB)}) |`,
    ),
    '',
    `| store | search | matches | p50 / p99, ms (samples) |`,
    `|---|---|---|---|`,
    ...results.flatMap(({ store, short }) =>
      short.map(
        (r) =>
          `| ${store} | \`${r.search}\` | ${typeof r.matches === 'number' ? r.matches.toLocaleString('en') : `refused (${r.matches.refused})`} | ${f(r.p50Ms, 2)} / ${f(r.p99Ms, 2)} (${r.samples}) |`,
      ),
    ),
    '',
  ].join('\n'),
);
