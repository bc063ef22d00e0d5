// `npm run bench` on a tiny database, its second half (test/system/bench-smoke.ts): the live tail,
// a few seconds of the soak, the production settings and the replicas, on one shape (the device
// page, which the replicas need). The shapes' own figures, the start-up and the exports are the other half's.
import { describe, afterAll, expect, it } from 'vitest';
import type { TailFigures } from '../bench/tail.ts';
import type { SoakFigures } from '../bench/soak.ts';
import type { ProductionFigures } from '../bench/production.ts';
import type { ReplicaFigures } from '../bench/replicas.ts';
import { runBench, type BenchRun } from './bench-smoke.ts';

let run: BenchRun | undefined;
afterAll(() => run?.remove());

describe('npm run bench on a tiny database: the live tail, the soak, the production settings, the replicas', () => {
  it('measures each against its baseline and writes every figure and target', async () => {
    run = await runBench({ BENCH_SHAPES: '2', BENCH_STARTUP: '0', BENCH_EXPORT: '0', BENCH_REFERENCE: '0', BENCH_SOAK_S: '5' });
    const { results } = run;
    expect(results.shapes.map((shape) => shape.id)).toEqual([2]);
    const tail = results.tail as TailFigures;
    expect(tail.deliveries).toBeGreaterThan(0);
    expect([tail.lost, tail.duplicated, tail.outOfOrder, tail.errors]).toEqual([0, 0, 0, 0]);
    // The soak ran on its gateway and was judged (its own system test judges a longer one).
    const soak = results.soak as SoakFigures;
    expect(soak.requests, JSON.stringify(results.soak)).toBeGreaterThan(0);
    expect(results.checks.filter((check) => check.name.startsWith('soak:')).length).toBeGreaterThanOrEqual(7);
    expect(run.stdout).toContain('Soak, every surface at once:');
    const production = results.production as ProductionFigures;
    expect(production.variants.map((row) => `${row.variant} ${row.shapeId}`)).toEqual([
      'throttle 2',
      'tracing 2',
      'tracing-10% 2',
      'cache 2',
    ]);
    for (const row of production.variants) {
      expect(row.variantRps, `${row.variant} ${row.shapeId}`).toBeGreaterThan(0);
      expect(row.variantNon2xx, `${row.variant} ${row.shapeId}`).toBe(0);
    }
    expect(production.spansReceived).toBeGreaterThan(0);
    // Where redis-server is installed (CI requires it), two workers sharing it answer too.
    const replicas = results.replicas as ReplicaFigures | { error: string };
    if ('error' in replicas) expect(replicas.error).toMatch(/redis-server is not installed/);
    else {
      expect(replicas.shapes.map((row) => row.shapeId)).toEqual([2]);
      for (const row of replicas.shapes) expect([row.twoWorkersRps > 0, row.twoWorkersFailures]).toEqual([true, 0]);
    }
    expect([results.startup, results.export, results.reference]).toEqual([null, null, null]);
    expect(results.skipped).toEqual([]);
  }, 300_000);
});
