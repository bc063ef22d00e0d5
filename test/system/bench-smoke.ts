// `npm run bench`, as the README gives it, end to end on a tiny database: it builds, seeds, starts
// its processes, measures and writes its figures. Nothing here judges speed; the run must work and
// report every figure. The run is split in two suites (bench-shapes, bench-features), each a run
// of its own with some parts switched off by the bench's own knobs, so that the system project
// runs them side by side: their loads last a fixed time each, whatever else the machine does.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO } from '../helpers/start-command.ts';
import type { BenchResults } from '../bench/results.ts';

export interface BenchRun {
  stdout: string;
  results: BenchResults;
  dir: string;
  /** Removes the run's folder (database, results). */
  remove(): void;
}

/** One `npm run bench` on a tiny database, one second per measurement, with `knobs` besides. */
export async function runBench(knobs: Record<string, string>): Promise<BenchRun> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
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
      // The soak has a system test of its own (soak.test.ts).
      BENCH_SOAK_S: '0',
      ...knobs,
    },
  });
  const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchResults;
  return { stdout, results, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
