// The reference service's own figures on the hot device (a million entries on one device): a
// two-term search page of 10, and the CSV export streamed and counted, with the service's memory
// growth while it streams. Measured against the running service child, straight over HTTP.
import { request } from 'undici';
import { percentile } from './load.ts';
import { memory, resetPeak } from './proc.ts';

export interface ReferenceFigures {
  deviceId: string;
  /** Entries of the device (its traffic `total`). */
  entries: number;
  search: { terms: string; matches: number; samples: number; p50Ms: number; p99Ms: number };
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

/** Records in a CSV stream: line ends outside quoted fields (RFC 4180 quotes may hold newlines). */
class CsvRowCounter {
  lines = 0;
  bytes = 0;
  #quoted = false;
  #lastByte = 10;

  push(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    let quoted = this.#quoted;
    let lines = 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === 34) quoted = !quoted;
      else if (byte === 10 && !quoted) lines++;
    }
    if (chunk.length > 0) this.#lastByte = chunk[chunk.length - 1]!;
    this.#quoted = quoted;
    this.lines += lines;
  }

  /** Data rows: records minus the header row (a last record without a line end counts too). */
  get rows(): number {
    return Math.max(0, this.lines + (this.#lastByte === 10 ? 0 : 1) - 1);
  }
}

export async function measureReferenceFigures(options: {
  v1Url: string;
  v1Pid: number;
  key: string;
  deviceId: string;
  search: string;
  durationS: number;
}): Promise<ReferenceFigures> {
  const { v1Url, v1Pid, key, deviceId } = options;
  const base = `${v1Url}/api/v1/atb/${deviceId}/traffic`;
  const { body: all } = await getJson<{ total: number }>(`${base}?limit=1`, key);

  // Search: sequential requests (one at a time, the latency of one page), after a short warm-up.
  const searchUrl = `${base}?search=${encodeURIComponent(options.search)}&limit=10`;
  let matches = 0;
  for (let i = 0; i < 3; i++) matches = (await getJson<{ total: number }>(searchUrl, key)).body.total;
  const times: number[] = [];
  const until = performance.now() + Math.min(options.durationS, 5) * 1000;
  while (times.length < 20 || (performance.now() < until && times.length < 500)) times.push((await getJson(searchUrl, key)).ms);
  const sorted = Float64Array.from(times).sort();

  // Export: streamed and counted here, the service's RSS sampled meanwhile.
  const before = memory(v1Pid).rssMB;
  const hwmReset = resetPeak(v1Pid);
  let sampledPeak = before;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, memory(v1Pid).rssMB);
  }, 50);
  const counter = new CsvRowCounter();
  const started = performance.now();
  try {
    const answer = await request(`${base}?export=csv`, {
      headers: { 'x-service-token': key },
      bodyTimeout: 120_000,
      headersTimeout: 120_000,
    });
    if (answer.statusCode !== 200) throw new Error(`CSV export: ${answer.statusCode} ${(await answer.body.text()).slice(0, 200)}`);
    for await (const chunk of answer.body) counter.push(chunk as Uint8Array);
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  const after = memory(v1Pid);
  const rssPeakMB = Math.max(sampledPeak, after.rssMB, hwmReset ? after.peakMB : 0);

  return {
    deviceId,
    entries: all.total,
    search: { terms: options.search, matches, samples: times.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) },
    export: {
      rows: counter.rows,
      megabytes: counter.bytes / 1024 / 1024,
      seconds,
      rowsPerSecond: counter.rows / seconds,
      rssBeforeMB: before,
      rssPeakMB,
      peakGrowthMB: rssPeakMB - before,
    },
  };
}
