// docs/benchmark.md holds the last full run's figures between two markers, which `npm run bench`
// rewrites (report.ts). These tests keep the rewrite to its place, and a partial run away from it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { benchmarkTable, changedKnobs, TABLE_END, TABLE_START, updateBenchmarkDoc } from '../../bench/report.ts';
import type { BenchResults, ShapeResult, TargetFigures } from '../../bench/results.ts';
import { readSettings } from '../../bench/settings.ts';
import { evaluateStartupTargets, evaluateTargets, isFlat } from '../../bench/targets.ts';

const dir = mkdtempSync(join(tmpdir(), 'benchmark-doc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function target(rps: number, p50: number, cpu: number | null): TargetFigures {
  return {
    load: { runner: 'autocannon', connections: 32, elapsedS: 5, responses: rps * 5, sent: rps * 5, non2xx: 0, errors: 0, bodyErrors: 0, rps, latencyMs: { p50, p99: p50 * 3, mean: p50, max: p50 * 5 }, stretchRps: [rps] },
    upstreamCallsPerRequest: 1,
    cpuMsPerRequest: cpu,
    v1CpuMsPerRequest: 0.2,
    warmUp: null,
  };
}

function shape(id: number, name: string, rps: { gateway: number; passthrough: number; direct: number }): ShapeResult {
  const calls = ['GET /api/v1/atb'];
  return {
    id,
    name,
    title: name,
    connections: 32,
    verification: { sameData: true, calls: { gateway: calls, passthrough: calls, direct: calls }, sameCalls: true, extraCalls: [], missingCalls: [], duplicateCalls: [] },
    targets: { gateway: target(rps.gateway, 20, 0.6), passthrough: target(rps.passthrough, 12, 0.3), direct: target(rps.direct, 6, null) },
    ratios: {
      rpsGatewayToPassthrough: rps.gateway / rps.passthrough,
      rpsGatewayToDirect: rps.gateway / rps.direct,
      p50GatewayToPassthrough: 20 / 12,
      p50GatewayToDirect: 20 / 6,
      p99GatewayToPassthrough: 20 / 12,
      p99GatewayToDirect: 20 / 6,
    },
    gatewayRssAfterMB: 120,
  };
}

function results(overrides: Partial<BenchResults['settings']> = {}): BenchResults {
  const { key: _key, ...settings } = readSettings({});
  const shapes = [shape(1, 'traffic-one', { gateway: 1600, passthrough: 2500, direct: 5000 }), shape(3, 'fan-out', { gateway: 90, passthrough: 100, direct: 150 })];
  const rounds = [130, 131, 130].map((meanMB, i) => ({ round: i + 1, rps: 500, peakMB: meanMB + 5, meanMB, endMB: meanMB, upstreamCallsPerRequest: 4, non2xx: 0, errors: 0 }));
  const memory: BenchResults['memory'] = {
    gatewayStartMB: 70,
    gatewayEndMB: 125,
    gatewayPeakMB: 160,
    gatewayLoadPeakMB: 144.2,
    soak: { rounds, ...isFlat(rounds.map((round) => round.meanMB)) },
    samples: [],
  };
  const startup = { firstStartMs: 300, startsMs: [190, 180, 210, 200, 185], medianMs: 190, inherited: null };
  return {
    startedAt: '2026-12-01T09:30:12.000Z',
    finishedAt: '2026-12-01T10:12:00.000Z',
    machine: { cpus: 2, node: 'v20.19.0', platform: 'linux x64', loadAtStart: 0.4, loadAtEnd: 1.9 },
    settings: { ...settings, ...overrides },
    database: { path: '.bench/v1.sqlite', reused: true, startSeconds: 1 },
    shapes,
    skipped: [],
    memory,
    reference: null,
    tail: null,
    soak: null,
    export: null,
    production: null,
    replicas: null,
    startup,
    checks: [...evaluateTargets(shapes, memory), ...evaluateStartupTargets(startup)],
  };
}

describe("docs/benchmark.md's table", () => {
  it('is rewritten only by a run with every knob at its default', () => {
    expect(changedKnobs(results().settings)).toEqual([]);
    expect(changedKnobs(results({ durationS: 1, shapes: [1, 3] }).settings)).toEqual(['BENCH_DURATION', 'BENCH_SHAPES']);
    expect(changedKnobs(results({ seed: { devices: 21, traffic: 200, hotTraffic: 2000 }, tail: false }).settings)).toEqual([
      'BENCH_DEVICES/TRAFFIC/HOT_TRAFFIC',
      'BENCH_TAIL',
    ]);
  });

  it("says when and how it was recorded, each shape's figures, memory, start-up and every target", () => {
    const table = benchmarkTable(results());
    expect(table).toMatch(/^Recorded 2026-12-01 09:30 UTC by `npm run bench` \(every knob at its default; 42 min\) on 2 CPUs, Node v20\.19\.0/);
    expect(table).toContain('| 1 traffic-one: requests/s | 1,600 | 2,500 | 5,000 | 0.64 | ≥ 0.5 | met |');
    expect(table).toContain('| 3 fan-out: requests/s | 90 | 100 | 150 | 0.90 | ≥ 0.95 | **not met** |');
    expect(table).toContain('| 3 fan-out: latency p50 / p99, ms | 20.0 / 60.0 | 12.0 / 36.0 | 6.0 / 18.0 | 1.67 / 1.67 | p50 ≤ 1.2 | **not met** |');
    expect(table).toContain('| 1 traffic-one: CPU per request, ms | 0.600 | 0.300 | – | 2.00 |  |  |');
    expect(table).toContain('| gateway peak RSS under the GraphQL load, MB | 144.2 |  |  |  | ≤ 175 | met |');
    expect(table).toContain('| gateway mean RSS a round of sustained mixed load, MB | 130.0, 131.0, 130.0 |  |  |  | flat | met |');
    expect(table).toContain('| start to first answered query, median of 5, ms | 190 (180 to 210) |  |  |  | ≤ 500 | met |');
    // Checks the table does not show are listed under it, so that every target appears once.
    expect(table).toContain('- met: shape 3 (fan-out): no duplicate upstream call:');
    const checks = results().checks;
    expect(table).toContain(`**${checks.filter((check) => check.met).length} of ${checks.length} targets met.**`);
  });

  it('replaces what lies between the markers and nothing else', () => {
    const path = join(dir, 'benchmark.md');
    const before = `# Benchmark\n\nMethod.\n\n${TABLE_START}\nold figures\n${TABLE_END}\n\nAfter.\n`;
    writeFileSync(path, before);
    expect(updateBenchmarkDoc(results(), path)).toMatch(/^Rewrote the figures of /);
    const after = readFileSync(path, 'utf8');
    expect(after).not.toContain('old figures');
    expect(after.startsWith(`# Benchmark\n\nMethod.\n\n${TABLE_START}\nRecorded 2026-12-01`)).toBe(true);
    expect(after.endsWith(`\n${TABLE_END}\n\nAfter.\n`)).toBe(true);

    writeFileSync(path, before);
    expect(updateBenchmarkDoc(results({ durationS: 2 }), path)).toMatch(/left as it is: .* this run set BENCH_DURATION$/);
    expect(readFileSync(path, 'utf8')).toBe(before);

    writeFileSync(path, '# Benchmark without markers\n');
    expect(updateBenchmarkDoc(results(), path)).toMatch(/has no <!-- bench:table:start -->/);
    expect(readFileSync(path, 'utf8')).toBe('# Benchmark without markers\n');
  });
});
