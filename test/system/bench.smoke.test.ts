// `npm run bench`, as the README gives it, end to end on a tiny database: it builds, seeds, starts
// the three processes, measures every shape and writes its figures. Its own vitest project runs it
// after the other suites, alone: its load would disturb their timing. Nothing here judges speed;
// the run must work and report every figure.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startCommandLine } from '../helpers/start-command.ts';
import type { StartupFigures } from '../bench/startup.ts';
import type { BenchResults } from '../bench/results.ts';
import type { ExportFigures } from '../bench/export.ts';
import type { TailFigures } from '../bench/tail.ts';
import type { ProductionFigures } from '../bench/production.ts';
import type { ReplicaFigures } from '../bench/replicas.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run bench on a tiny database', () => {
  it('measures the five shapes against the pass-through and v1, and writes every figure and target', async () => {
    const { stdout } = await promisify(execFile)('npm', ['run', 'bench', '--silent'], {
      cwd: REPO,
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
      env: {
        ...process.env,
        BENCH_DIR: dir,
        BENCH_DEVICES: '21',
        BENCH_TRAFFIC: '200',
        BENCH_HOT_TRAFFIC: '2000',
        BENCH_DURATION: '1',
        BENCH_WARMUP: '0',
        BENCH_ROUNDS: '1',
        BENCH_SOAK_ROUNDS: '2',
      },
    });
    // The gateway measured is the one `npm start` runs, with its flags.
    expect(stdout).toContain(`gateway: ${startCommandLine()} (npm start's settings)`);
    expect(stdout).toMatch(/^Targets:$/m);

    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchResults;
    expect(results.shapes.map((shape) => shape.id)).toEqual([1, 2, 3, 4, 5]);
    for (const shape of results.shapes) {
      expect(shape.verification.sameData, shape.name).toBe(true);
      expect(shape.verification.sameCalls, shape.name).toBe(true);
      for (const [target, figures] of Object.entries(shape.targets)) {
        const label = `${shape.name} ${target}`;
        expect(figures.load.responses, label).toBeGreaterThan(0);
        expect([figures.load.non2xx, figures.load.errors, figures.load.bodyErrors], label).toEqual([0, 0, 0]);
        expect(figures.upstreamCallsPerRequest, label).toBeGreaterThan(0);
        if (target !== 'direct') expect(figures.cpuMsPerRequest, label).toBeGreaterThan(0);
      }
      expect(Number.isFinite(shape.ratios.rpsGatewayToPassthrough), shape.name).toBe(true);
    }
    expect(results.memory.soak.rounds).toHaveLength(2);
    expect(results.memory.gatewayPeakMB).toBeGreaterThan(0);
    expect(results.memory.gatewayLoadPeakMB).toBeGreaterThan(0);
    expect(results.memory.gatewayLoadPeakMB).toBeLessThanOrEqual(results.memory.gatewayPeakMB);
    const reference = results.reference;
    if (!reference || 'error' in reference) throw new Error(`no reference figures: ${JSON.stringify(reference)}`);
    expect(reference.entries).toBeGreaterThanOrEqual(2_000);
    expect(reference.exports.csv.rows).toBe(reference.entries);
    expect(reference.exports.ndjson.rows).toBe(reference.entries);
    expect(reference.search.samples).toBeGreaterThan(0);
    // Every target of the benchmark is judged, met or not.
    const tail = results.tail as TailFigures;
    expect(tail.deliveries).toBeGreaterThan(0);
    expect([tail.lost, tail.duplicated, tail.outOfOrder, tail.errors]).toEqual([0, 0, 0, 0]);
    const exported = results.export as ExportFigures;
    expect(exported.identical).toBe(true);
    expect(exported.rows).toBeGreaterThanOrEqual(2_000);
    const production = results.production as ProductionFigures;
    expect(production.variants.map((row) => `${row.variant} ${row.shapeId}`)).toEqual([
      ...[1, 2, 3, 4, 5].map((id) => `throttle ${id}`),
      ...[1, 2, 3, 4, 5].map((id) => `tracing ${id}`),
      ...[1, 2, 3, 4, 5].map((id) => `tracing-10% ${id}`),
      ...[1, 2, 3, 4].map((id) => `cache ${id}`),
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
      expect(replicas.shapes.map((row) => row.shapeId)).toEqual([2, 3]);
      for (const row of replicas.shapes) expect([row.twoWorkersRps > 0, row.twoWorkersFailures]).toEqual([true, 0]);
    }
    // The compiled gateway started anew and timed to its first answer, each start.
    const startup = results.startup as StartupFigures;
    expect(startup.firstStartMs).toBeGreaterThan(0);
    expect(startup.startsMs).toHaveLength(5);
    for (const ms of startup.startsMs) expect(ms).toBeGreaterThan(0);
    // A machine that sets NODE_EXTRA_CA_CERTS has the same starts timed with it as well.
    if (process.env.NODE_EXTRA_CA_CERTS === undefined) expect(startup.inherited).toBeNull();
    else {
      expect(startup.inherited?.variables).toEqual(['NODE_EXTRA_CA_CERTS']);
      expect(startup.inherited?.startsMs).toHaveLength(5);
      for (const ms of startup.inherited?.startsMs ?? []) expect(ms).toBeGreaterThan(0);
    }
    expect(results.checks).toHaveLength(22);
    expect(results.skipped).toEqual([]);
    expect(existsSync(join(dir, 'results.html'))).toBe(true);
  }, 300_000);
});
