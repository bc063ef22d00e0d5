// Load generation. Single-request targets go through autocannon; a target whose one "request" is
// several v1 calls (the direct fan-out) goes through a closed loop of the same concurrency. Both
// keep every latency (autocannon's own histogram rounds to whole milliseconds), so percentiles
// come from one function for every target.
import autocannon from 'autocannon';
import type { IncomingHttpHeaders } from 'node:http';
import type { HttpMethod } from './shapes.ts';

/** One stretch of load, with every latency kept so that stretches can be put together. */
export interface LoadSample {
  runner: 'autocannon' | 'closed-loop';
  connections: number;
  /** Seconds from the first request to the last response. */
  elapsedS: number;
  /** Responses received (any status). */
  responses: number;
  /** Requests sent, including those in flight when the time ran out. */
  sent: number;
  non2xx: number;
  /** Network errors and timeouts. */
  errors: number;
  /** 2xx responses whose body said that something failed (GraphQL `errors`, v1 `error` not 0). */
  bodyErrors: number;
  /** Milliseconds of each 2xx response. */
  latencies: number[];
}

/** One or more stretches of load on one target, summarised. */
export interface LoadResult extends Omit<LoadSample, 'latencies'> {
  rps: number;
  latencyMs: { p50: number; p99: number; mean: number; max: number };
  /** Responses per second of each stretch (their spread shows how noisy the machine was). */
  stretchRps: number[];
}

export interface HttpTarget {
  url: string;
  method: HttpMethod;
  headers: IncomingHttpHeaders;
  body?: string;
  /** True when a 2xx body is a success. */
  verifyBody?: (body: string | Buffer | undefined) => boolean;
  /** Several requests that each connection sends in turn (instead of one repeated). */
  requests?: { method: HttpMethod; path: string; body?: string }[];
}

export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Stretches of load on one target as one: counts added, rates over the summed time, percentiles over every latency. */
export function summarize(samples: LoadSample[]): LoadResult {
  const sum = (pick: (sample: LoadSample) => number) => samples.reduce((total, sample) => total + pick(sample), 0);
  const sorted = Float64Array.from(samples.flatMap((sample) => sample.latencies)).sort();
  const elapsedS = sum((x) => x.elapsedS);
  const responses = sum((x) => x.responses);
  return {
    runner: samples[0]?.runner ?? 'autocannon',
    connections: samples[0]?.connections ?? 0,
    elapsedS,
    responses,
    sent: sum((x) => x.sent),
    non2xx: sum((x) => x.non2xx),
    errors: sum((x) => x.errors),
    bodyErrors: sum((x) => x.bodyErrors),
    rps: responses / elapsedS,
    latencyMs: {
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      mean: sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1),
      max: sorted.at(-1) ?? NaN,
    },
    stretchRps: samples.map((x) => x.responses / x.elapsedS),
  };
}

/** How long a load lasts: a time, or a number of responses (every request sent is answered). */
export type LoadLength = { durationS: number } | { amount: number };

export function autocannonLoad(target: HttpTarget, connections: number, length: LoadLength): Promise<LoadSample> {
  const latencies: number[] = [];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: target.method,
        headers: target.headers,
        ...(target.body === undefined ? {} : { body: target.body }),
        connections,
        ...('amount' in length ? { amount: Math.max(length.amount, connections) } : { duration: length.durationS }),
        timeout: 30,
        ...(target.verifyBody ? { verifyBody: target.verifyBody } : {}),
        ...(target.requests ? { requests: target.requests } : {}),
      },
      (error: unknown, result: autocannon.Result) => {
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        const elapsedS = (performance.now() - started) / 1000;
        resolve({
          runner: 'autocannon',
          connections,
          elapsedS,
          responses: result.requests.total,
          sent: result.requests.sent,
          non2xx: result.non2xx,
          errors: result.errors,
          bodyErrors: result.mismatches,
          latencies,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
}

/**
 * `connections` loops, each running `request` again as soon as it settles, for the length. A
 * rejection with a numeric `status` is an answer: a 2xx one had an error body (as autocannon's
 * body mismatches), any other is a non-2xx; a rejection without one is a network error. Only
 * successes give latencies (a failed sequence stops early and would look fast).
 */
export async function closedLoopLoad(request: () => Promise<void>, connections: number, length: LoadLength): Promise<LoadSample> {
  const latencies: number[] = [];
  let sent = 0;
  let errors = 0;
  let non2xx = 0;
  let bodyErrors = 0;
  const started = performance.now();
  const more =
    'amount' in length
      ? () => sent < length.amount
      : ((end) => () => performance.now() < end)(started + length.durationS * 1000);
  const loop = async () => {
    while (more()) {
      sent += 1;
      const t = performance.now();
      try {
        await request();
        latencies.push(performance.now() - t);
      } catch (error) {
        const status = (error as { status?: unknown }).status;
        if (typeof status !== 'number') errors += 1;
        else if (status >= 200 && status < 300) bodyErrors += 1;
        else non2xx += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsedS = (performance.now() - started) / 1000;
  return {
    runner: 'closed-loop',
    connections,
    elapsedS,
    responses: latencies.length + non2xx + bodyErrors,
    sent,
    non2xx,
    errors,
    bodyErrors,
    latencies,
  };
}
