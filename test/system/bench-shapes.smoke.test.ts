// `npm run bench` on a tiny database, its first half (test/system/bench-smoke.ts): every shape
// against the pass-through and v1, the sustained load, the start-up, the export and the reference
// service's figures. The live tail, the production settings and the replicas are the other half's.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCommandLine } from '../helpers/start-command.ts';
import type { StartupFigures } from '../bench/startup.ts';
import type { ExportFigures } from '../bench/export.ts';
import { runBench, type BenchRun } from './bench-smoke.ts';

let run: BenchRun | undefined;
afterAll(() => run?.remove());

describe('npm run bench on a tiny database: the shapes, start-up, export and reference figures', () => {
  it('measures the five shapes against the pass-through and v1, and writes every figure and target', async () => {
    run = await runBench({ BENCH_TAIL: '0', BENCH_PRODUCTION: '0', BENCH_REPLICAS: '0' });
    const { stdout, results, dir } = run;
    // The gateway measured is the one `npm start` runs, with its flags.
    expect(stdout).toContain(`gateway: ${startCommandLine()} (npm start's settings)`);
    expect(stdout).toMatch(/^Targets:$/m);

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
    const exported = results.export as ExportFigures;
    expect(exported.identical).toBe(true);
    expect(exported.rows).toBeGreaterThanOrEqual(2_000);
    // The gateway started anew and timed to its first answer, each start.
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
    // Every target of the parts run is judged, met or not; the parts switched off are not.
    expect(results.tail).toBeNull();
    expect(results.production).toBeNull();
    expect(results.replicas).toBeNull();
    expect(results.checks.length).toBeGreaterThan(10);
    expect(results.skipped).toEqual([]);
    expect(existsSync(join(dir, 'results.html'))).toBe(true);
  }, 300_000);
});
