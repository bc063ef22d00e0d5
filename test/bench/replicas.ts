// GATEWAY_WORKERS=2 sharing state through a real Redis against the one-worker gateway as `npm
// start` runs it, on the device page and the fan-out, side by side; with throttling on (a budget
// the load never exhausts) so that every request makes its two Redis round trips (reserve,
// settle), whose own latency is measured apart. On a 2-core machine the second worker competes
// with the upstream and the load generator for the same cores: the figures say what it allows.
import { Redis } from 'ioredis';
import { redisAvailable, startRedis } from '../helpers/redis.ts';
import type { BenchChild } from './children.ts';
import { autocannonLoad, percentile } from './load.ts';
import { graphqlTarget } from './measure.ts';
import { alternate } from './production.ts';
import type { BenchSettings } from './settings.ts';
import type { Shape } from './shapes.ts';
import { startGatewayChild, type Stack } from './stack.ts';

const START_TIMEOUT_MS = 60_000;
const PINGS = 500;

export interface ReplicaFigures {
  /** p50 and p99 of one Redis round trip (PING) from this process, ms. */
  redisRoundTripMs: { p50: number; p99: number };
  shapes: { shapeId: number; shapeName: string; oneWorkerRps: number; twoWorkersRps: number; ratio: number; oneWorkerP50Ms: number; twoWorkersP50Ms: number; twoWorkersFailures: number }[];
}

export async function benchReplicas(stack: Stack, shapes: Shape[], settings: BenchSettings, log: (line: string) => void): Promise<ReplicaFigures | { error: string }> {
  if (!redisAvailable()) return { error: 'redis-server is not installed (apt-get install -y redis-server)' };
  const redis = await startRedis();
  let workers: BenchChild | undefined;
  try {
    const client = new Redis(redis.url);
    const times = new Float64Array(PINGS);
    try {
      for (let i = 0; i < PINGS; i++) {
        const started = performance.now();
        await client.ping();
        times[i] = performance.now() - started;
      }
    } finally {
      client.disconnect();
    }
    times.sort();
    const redisRoundTripMs = { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
    log(`  Redis round trip (PING): p50 ${redisRoundTripMs.p50.toFixed(3)} ms, p99 ${redisRoundTripMs.p99.toFixed(3)} ms`);

    workers = startGatewayChild('gateway (2 workers)', settings, stack.v1Url, {
      GATEWAY_WORKERS: '2',
      REDIS_URL: redis.url,
      RATE_LIMIT_CALLS: '10000000',
      RATE_LIMIT_RESTORE_PER_S: '10000000',
    });
    const { url } = await workers.ready(START_TIMEOUT_MS);
    const stretchS = Math.max(1, settings.durationS / settings.rounds);
    const rows: ReplicaFigures['shapes'] = [];
    for (const shape of shapes.filter((s) => s.id === 2 || s.id === 3)) {
      const one = graphqlTarget(stack.gatewayUrl, shape, settings.key);
      const two = graphqlTarget(url, shape, settings.key);
      if (settings.warmupS > 0) {
        await autocannonLoad(two, shape.connections, { durationS: settings.warmupS });
        await autocannonLoad(one, shape.connections, { durationS: settings.warmupS });
      }
      const measured = await alternate(
        { load: () => autocannonLoad(one, shape.connections, { durationS: stretchS }), pid: undefined },
        { load: () => autocannonLoad(two, shape.connections, { durationS: stretchS }), pid: undefined },
        settings.rounds,
      );
      const row = {
        shapeId: shape.id,
        shapeName: shape.name,
        oneWorkerRps: measured.baseline.load.rps,
        twoWorkersRps: measured.variant.load.rps,
        ratio: measured.baseline.load.rps > 0 ? measured.variant.load.rps / measured.baseline.load.rps : 0,
        oneWorkerP50Ms: measured.baseline.load.latencyMs.p50,
        twoWorkersP50Ms: measured.variant.load.latencyMs.p50,
        twoWorkersFailures: measured.variant.load.non2xx + measured.variant.load.errors + measured.variant.load.bodyErrors,
      };
      rows.push(row);
      log(
        `  shape ${shape.id} ${shape.name.padEnd(16)} 2 workers + Redis ${row.twoWorkersRps.toFixed(0).padStart(5)} rps (p50 ${row.twoWorkersP50Ms.toFixed(1)} ms) ` +
          `vs 1 worker ${row.oneWorkerRps.toFixed(0).padStart(5)} rps (p50 ${row.oneWorkerP50Ms.toFixed(1)} ms) = ${row.ratio.toFixed(2)} x`,
      );
    }
    return { redisRoundTripMs, shapes: rows };
  } finally {
    await workers?.stop();
    await redis.close();
  }
}
