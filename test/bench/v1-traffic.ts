// Benchmark of the reference service's traffic log at size: a million entries on one device.
//
//   npx tsx test/bench/v1-traffic.ts
//
// Seeds a database file in a temporary folder (1,000 devices, a million entries on device 1; the
// V1_SEED_* variables change the sizes), starts the service on it in a child process (so that
// its memory is its own, read from /proc), and measures over HTTP: two-term searches for a page
// of 10 (total included), pages of 1,000, and full CSV and NDJSON exports (rows a second, and
// the growth of the service's resident memory while it streams). Prints a table and writes
// .bench/v1-traffic.json.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDemo } from '../../src/v1/seed/index.ts';
import { openDatabase } from '../../src/v1/storage/database.ts';
import { guardChildren, startChild, stopAllChildren } from './children.ts';
import { memory, MemorySampler, resetPeak } from './proc.ts';

const KEY = 'bench-traffic-admin-key';
const DEVICE = 1;

function sizeSetting(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  return value;
}

const sizes = {
  devices: Math.max(1, sizeSetting('V1_SEED_DEVICES', 1000)),
  traffic: sizeSetting('V1_SEED_TRAFFIC', 0),
  hotTraffic: sizeSetting('V1_SEED_HOT_TRAFFIC', 1_000_000),
};

// "An IP fragment and a word": attack sources of the demo data against words of its log lines,
// each pair asked once (nothing is answered from a cache the previous run filled).
const FRAGMENTS = [
  '203.0.113',
  '198.51.100',
  '192.0.2',
  '203.0.113.7',
  '198.51.100.73',
  '203.0.113.142',
  '192.0.2.77',
  '198.51.100.1',
  '203.0.113.2',
  '192.0.2.1',
];
const WORDS = ['sqlmap', 'wp-login', 'block', 'ModSecurity', 'nikto', 'passwd', 'POST', 'UFW', 'masscan', 'log4j'];
const SEARCHES = FRAGMENTS.flatMap((fragment, i) =>
  WORDS.filter((_, j) => (i + j) % 2 === 0).map((word, j) => (j % 2 === 0 ? `${fragment} ${word}` : `${word} ${fragment}`)),
);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

function summary(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  return { runs: ms.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
}

async function getJson(url: string): Promise<{ ms: number; json: { total: number; data: unknown[] } }> {
  const started = performance.now();
  const res = await fetch(url, { headers: { 'X-Service-Token': KEY } });
  const json = (await res.json()) as { total: number; data: unknown[] };
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${JSON.stringify(json)}`);
  return { ms, json };
}

/**
 * Downloads an export as fast as the client can, counting its bytes and lines. Plain node:http
 * rather than fetch: the client shares the machine's two cores with the service, and web streams
 * would cost it several times more per chunk.
 */
function download(url: string): Promise<{ seconds: number; bytes: number; lines: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = get(url, { headers: { 'X-Service-Token': KEY } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET ${url}: ${res.statusCode}`));
        return;
      }
      let bytes = 0;
      let lines = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => resolve({ seconds: (performance.now() - started) / 1000, bytes, lines }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function main(): Promise<void> {
  guardChildren();
  const dir = mkdtempSync(join(tmpdir(), 'v1-traffic-bench-'));
  const database = join(dir, 'v1.sqlite');
  try {
    process.stderr.write(`seeding ${sizes.devices} devices, ${sizes.traffic} + ${sizes.hotTraffic} traffic entries into ${database}\n`);
    const db = openDatabase(database);
    const seedStarted = performance.now();
    seedDemo(db, sizes);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    db.close();
    const databaseMB = statSync(database).size / 1024 / 1024;
    process.stderr.write(`seeded in ${seedSeconds.toFixed(1)} s (${databaseMB.toFixed(0)} MB)\n`);

    const child = startChild('v1', './v1-service.ts', {
      V1_DATABASE: database,
      V1_PORT: '0',
      V1_SEED: 'none',
      V1_API_KEYS: `${KEY}=*`,
      V1_SIMULATE_TRAFFIC: '0',
    });
    const { url } = await child.ready(60_000);
    const traffic = `${url}/api/v1/atb/${DEVICE}/traffic`;
    const deviceTotal = (await getJson(`${traffic}?limit=1`)).json.total;

    // Warm-up: the first requests pay for loading statements and index pages from disk.
    for (const search of ['10.20.1', 'nginx block', 'curl 198.51']) await getJson(`${traffic}?search=${encodeURIComponent(search)}`);
    await getJson(`${traffic}?limit=1000`);

    const searchRuns: { search: string; ms: number; total: number }[] = [];
    for (const search of SEARCHES) {
      const { ms, json } = await getJson(`${traffic}?limit=10&search=${encodeURIComponent(search)}`);
      searchRuns.push({ search, ms, total: json.total });
    }

    // The newest 1,000 (what a client asks first), and pages spread over the whole log (an
    // offset is walked, so deep pages cost more).
    const firstPageMs: number[] = [];
    for (let i = 0; i < 20; i++) firstPageMs.push((await getJson(`${traffic}?limit=1000`)).ms);
    const pageMs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const offset = Math.floor((i / 20) * Math.max(0, deviceTotal - 1000));
      const { ms, json } = await getJson(`${traffic}?limit=1000&offset=${offset}`);
      if (json.data.length !== Math.min(1000, deviceTotal - offset)) throw new Error('short page');
      pageMs.push(ms);
    }
    const searchPageMs: number[] = [];
    for (const search of SEARCHES.slice(0, 20)) {
      searchPageMs.push((await getJson(`${traffic}?limit=1000&search=${encodeURIComponent(search)}`)).ms);
    }

    const exports: Record<string, unknown> = {};
    for (const format of ['csv', 'ndjson'] as const) {
      const peakReset = resetPeak(child.pid);
      const before = memory(child.pid).rssMB;
      const sampler = new MemorySampler(child.pid, 20);
      const result = await download(`${traffic}?export=${format}`);
      sampler.stop();
      const sampledPeak = sampler.peak();
      const peak = peakReset ? Math.max(sampledPeak, memory(child.pid).peakMB) : sampledPeak;
      const rows = format === 'csv' ? result.lines - 1 : result.lines;
      if (rows !== deviceTotal) throw new Error(`${format} export has ${rows} rows, expected ${deviceTotal}`);
      exports[format] = {
        rows,
        seconds: result.seconds,
        rowsPerSecond: rows / result.seconds,
        MB: result.bytes / 1024 / 1024,
        rssBeforeMB: before,
        rssPeakMB: peak,
        rssGrowthMB: peak - before,
        peakFrom: peakReset ? 'VmHWM after reset, and samples every 20 ms' : 'samples every 20 ms',
      };
    }
    await stopAllChildren();

    const search = summary(searchRuns.map((r) => r.ms));
    const totals = searchRuns.map((r) => r.total).sort((a, b) => a - b);
    const report = {
      when: new Date().toISOString(),
      sizes,
      deviceTotal,
      seed: { seconds: seedSeconds, databaseMB },
      search: { ...search, totals: { min: totals[0], median: percentile(totals, 50), max: totals.at(-1) }, runs: searchRuns },
      firstPage1000: summary(firstPageMs),
      page1000AnyOffset: summary(pageMs),
      searchPage1000: summary(searchPageMs),
      exports,
    };
    mkdirSync('.bench', { recursive: true });
    writeFileSync('.bench/v1-traffic.json', `${JSON.stringify(report, null, 2)}\n`);

    const csv = exports.csv as { rowsPerSecond: number; rssGrowthMB: number; seconds: number };
    const ndjson = exports.ndjson as { rowsPerSecond: number; rssGrowthMB: number; seconds: number };
    const f = (n: number, digits = 1) => n.toFixed(digits);
    console.log(`\nv1 traffic log, ${deviceTotal.toLocaleString('en')} entries on device ${DEVICE}\n`);
    console.table({
      'seed (s)': { value: f(seedSeconds), target: '< 60' },
      'database (MB)': { value: f(databaseMB, 0), target: '' },
      'two-term search, page of 10, p50 (ms)': { value: f(search.p50), target: '<= 20' },
      'two-term search, page of 10, p99 (ms)': { value: f(search.p99), target: '' },
      'two-term search totals (median)': { value: String(percentile(totals, 50)), target: '' },
      'page of 1,000 (newest), p50 (ms)': { value: f(report.firstPage1000.p50), target: '' },
      'page of 1,000 (any offset), p50 (ms)': { value: f(report.page1000AnyOffset.p50), target: '' },
      'search page of 1,000, p50 (ms)': { value: f(report.searchPage1000.p50), target: '' },
      'CSV export (rows/s)': { value: f(csv.rowsPerSecond, 0), target: '>= 200,000' },
      'CSV export RSS growth (MB)': { value: f(csv.rssGrowthMB), target: '<= 64' },
      'NDJSON export (rows/s)': { value: f(ndjson.rowsPerSecond, 0), target: '' },
      'NDJSON export RSS growth (MB)': { value: f(ndjson.rssGrowthMB), target: '<= 64' },
    });
    console.log('written to .bench/v1-traffic.json');
  } finally {
    await stopAllChildren();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
