// The reference service's own figures on the hot device (a million entries on one device): a
// two-term search page of 10, and the CSV and NDJSON exports streamed and counted, with the
// service's memory growth while each streams. Measured against the running service child,
// straight over HTTP.
import { request } from 'undici';
import { percentile } from './load.ts';
import { memory, MemorySampler, resetPeak } from './proc.ts';
import { v1Get } from './stack.ts';

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** One full export, streamed and counted here. */
export interface ExportFigures {
  rows: number;
  megabytes: number;
  seconds: number;
  rowsPerSecond: number;
  rssBeforeMB: number;
  /** Largest RSS while streaming: the sampled maximum, or VmHWM when it could be reset first. */
  rssPeakMB: number;
  peakGrowthMB: number;
}

export interface ReferenceFigures {
  deviceId: string;
  /** Entries of the device (its traffic `total`). */
  entries: number;
  search: { terms: string; medianMatches: number; samples: number; p50Ms: number; p99Ms: number };
  exports: Record<ExportFormat, ExportFigures>;
}

async function getJson<T>(url: string, key: string): Promise<{ ms: number; body: T }> {
  const started = performance.now();
  const body = await v1Get<T>(url, key);
  return { ms: performance.now() - started, body };
}

/** Line ends in a stream (counted with indexOf: the client must not be what limits the export). */
function countLines(chunk: Uint8Array): number {
  let lines = 0;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  return lines;
}

/** Streams one export of the device, counting its rows, while the service's RSS is sampled. */
async function measureExport(base: string, format: ExportFormat, key: string, v1Pid: number, entries: number): Promise<ExportFigures> {
  const before = memory(v1Pid).rssMB;
  const hwmReset = resetPeak(v1Pid);
  const sampler = new MemorySampler(v1Pid, 20);
  let lines = 0;
  let bytes = 0;
  const started = performance.now();
  try {
    const answer = await request(`${base}?export=${format}`, {
      headers: { 'x-service-token': key },
      bodyTimeout: 120_000,
      headersTimeout: 120_000,
    });
    if (answer.statusCode !== 200) throw new Error(`${format} export: ${answer.statusCode} ${(await answer.body.text()).slice(0, 200)}`);
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
  const rows = format === 'csv' ? lines - 1 : lines; // CSV starts with a header row
  if (rows !== entries) throw new Error(`the ${format} export has ${rows} rows for ${entries} entries`);
  return {
    rows,
    megabytes: bytes / 1024 / 1024,
    seconds,
    rowsPerSecond: rows / seconds,
    rssBeforeMB: before,
    rssPeakMB,
    peakGrowthMB: rssPeakMB - before,
  };
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
  const all = await v1Get<{ total: number }>(`${base}?limit=1`, key);

  // Search: one request at a time (the latency of one page), after one round of warm-up.
  const searchUrl = (i: number) => `${base}?search=${encodeURIComponent(searches[i % searches.length]!)}&limit=10`;
  const matches: number[] = [];
  for (let i = 0; i < searches.length; i++) matches.push((await getJson<{ total: number }>(searchUrl(i), key)).body.total);
  const times: number[] = [];
  const until = performance.now() + Math.min(options.durationS, 5) * 1000;
  while (times.length < 20 || (performance.now() < until && times.length < 500)) times.push((await getJson(searchUrl(times.length), key)).ms);
  const sorted = Float64Array.from(times).sort();

  // Exports one after the other, each with the service's memory to itself.
  const exports = {} as Record<ExportFormat, ExportFigures>;
  for (const format of EXPORT_FORMATS) exports[format] = await measureExport(base, format, key, v1Pid, all.total);

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
    exports,
  };
}
