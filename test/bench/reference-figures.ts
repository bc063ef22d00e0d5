// The reference service's own figures on the hot device (a million entries on one device): a
// two-term search page of 10, and the CSV export streamed and counted, with the service's memory
// growth while it streams. Measured against the running service child, straight over HTTP.
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { percentile } from './load.ts';
import { memory, MemorySampler, resetPeak } from './proc.ts';

export interface ReferenceFigures {
  deviceId: string;
  /** Entries of the device (its traffic `total`). */
  entries: number;
  search: { terms: string; medianMatches: number; samples: number; p50Ms: number; p99Ms: number };
  export: {
    rows: number;
    megabytes: number;
    seconds: number;
    rowsPerSecond: number;
    rssBeforeMB: number;
    /** Largest RSS while streaming: the sampled maximum, or VmHWM when it could be reset first. */
    rssPeakMB: number;
    peakGrowthMB: number;
  };
}

async function getJson<T>(url: string, key: string): Promise<{ ms: number; body: T }> {
  const started = performance.now();
  const answer = await request(url, { headers: { 'x-service-token': key, accept: 'application/json' } });
  const text = await answer.body.text();
  const ms = performance.now() - started;
  if (answer.statusCode !== 200) throw new Error(`GET ${new URL(url).pathname}: ${answer.statusCode} ${text.slice(0, 200)}`);
  return { ms, body: JSON.parse(text) as T };
}

/** Line ends in a stream (counted with indexOf: the client must not be what limits the export). */
function countLines(chunk: Uint8Array): number {
  let lines = 0;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  return lines;
}

export async function measureReferenceFigures(options: {
  v1Url: string;
  v1Pid: number;
  key: string;
  deviceId: string;
  /** Two-term searches, asked in turn (so that no single query's pages stay the only ones cached). */
  searches: string[];
  durationS: number;
}): Promise<ReferenceFigures> {
  const { v1Url, v1Pid, key, deviceId, searches } = options;
  const base = `${v1Url}/api/v1/atb/${deviceId}/traffic`;
  const { body: all } = await getJson<{ total: number }>(`${base}?limit=1`, key);

  // Search: one request at a time (the latency of one page), after one round of warm-up.
  const searchUrl = (i: number) => `${base}?search=${encodeURIComponent(searches[i % searches.length]!)}&limit=10`;
  const matches: number[] = [];
  for (let i = 0; i < searches.length; i++) matches.push((await getJson<{ total: number }>(searchUrl(i), key)).body.total);
  const times: number[] = [];
  const until = performance.now() + Math.min(options.durationS, 5) * 1000;
  while (times.length < 20 || (performance.now() < until && times.length < 500)) times.push((await getJson(searchUrl(times.length), key)).ms);
  const sorted = Float64Array.from(times).sort();

  // Export: streamed and counted here, the service's RSS sampled meanwhile.
  const before = memory(v1Pid).rssMB;
  const hwmReset = resetPeak(v1Pid);
  const sampler = new MemorySampler(v1Pid, 20);
  let lines = 0;
  let bytes = 0;
  const started = performance.now();
  try {
    const answer = await request(`${base}?export=csv`, {
      headers: { 'x-service-token': key },
      bodyTimeout: 120_000,
      headersTimeout: 120_000,
    });
    if (answer.statusCode !== 200) throw new Error(`CSV export: ${answer.statusCode} ${(await answer.body.text()).slice(0, 200)}`);
    for await (const chunk of answer.body) {
      bytes += (chunk as Uint8Array).length;
      lines += countLines(chunk as Uint8Array);
    }
  } finally {
    sampler.stop();
  }
  const seconds = (performance.now() - started) / 1000;
  const after = memory(v1Pid);
  const rssPeakMB = Math.max(sampler.peak(), after.rssMB, hwmReset ? after.peakMB : 0);
  const rows = lines - 1; // the header row
  if (rows !== all.total) throw new Error(`the CSV export has ${rows} rows for ${all.total} entries`);

  return {
    deviceId,
    entries: all.total,
    search: {
      terms: searches.join(' | '),
      medianMatches: [...matches].sort((a, b) => a - b)[Math.floor(matches.length / 2)] ?? 0,
      samples: times.length,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
    },
    export: {
      rows,
      megabytes: bytes / 1024 / 1024,
      seconds,
      rowsPerSecond: rows / seconds,
      rssBeforeMB: before,
      rssPeakMB,
      peakGrowthMB: rssPeakMB - before,
    },
  };
}

/** The figures test/bench/v1-traffic.ts saved last (its own seeding and a wider search mix), if any. */
export interface SavedV1TrafficFigures {
  when: string;
  deviceTotal: number;
  searchP50Ms: number;
  searchP99Ms: number;
  searches: number;
  csvRowsPerSecond: number;
  csvGrowthMB: number;
}

export function readSavedV1TrafficFigures(path: string): SavedV1TrafficFigures | null {
  try {
    const saved = JSON.parse(readFileSync(path, 'utf8')) as {
      when: string;
      deviceTotal: number;
      search: { p50: number; p99: number; runs: unknown[] };
      exports: { csv: { rowsPerSecond: number; rssGrowthMB: number } };
    };
    return {
      when: saved.when,
      deviceTotal: saved.deviceTotal,
      searchP50Ms: saved.search.p50,
      searchP99Ms: saved.search.p99,
      searches: saved.search.runs.length,
      csvRowsPerSecond: saved.exports.csv.rowsPerSecond,
      csvGrowthMB: saved.exports.csv.rssGrowthMB,
    };
  } catch {
    return null; // absent, or of another format
  }
}
