// CPU time and memory of the benchmark's child processes, read from /proc (Linux): nothing runs
// inside the measured process to report them.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds the process has used (resolution: one clock tick, usually 10 ms). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

export interface Memory {
  /** Resident set size now, MB. */
  rssMB: number;
  /** Peak resident set size since start (or since `resetPeak`), MB. */
  peakMB: number;
}

export function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kB = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMB: kB('VmRSS') / 1024, peakMB: kB('VmHWM') / 1024 };
}

/** Resets VmHWM to the current RSS (writing 5 to clear_refs); false where the kernel refuses. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface MemorySample {
  /** Seconds since the sampler started. */
  t: number;
  rssMB: number;
  /** What was running (the phase label set by `mark`). */
  phase: string;
}

/** Samples one process's RSS every `intervalMs`, labelling samples with the phase in progress. */
export class MemorySampler {
  readonly samples: MemorySample[] = [];
  readonly #started = performance.now();
  #phase = 'start';
  #timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    intervalMs = 200,
  ) {
    this.#timer = setInterval(() => this.sample(), intervalMs);
    this.#timer.unref();
    this.sample();
  }

  mark(phase: string): void {
    this.#phase = phase;
  }

  sample(): MemorySample | undefined {
    try {
      const sample = { t: (performance.now() - this.#started) / 1000, rssMB: memory(this.pid).rssMB, phase: this.#phase };
      this.samples.push(sample);
      return sample;
    } catch {
      return undefined; // the process is gone
    }
  }

  /** Largest RSS among the samples of phases matching `phase`. */
  peak(phase: (name: string) => boolean = () => true): number {
    return Math.max(...this.samples.filter((s) => phase(s.phase)).map((s) => s.rssMB));
  }

  /** Mean RSS over the samples of phases matching `phase`. */
  mean(phase: (name: string) => boolean = () => true): number {
    const chosen = this.samples.filter((s) => phase(s.phase));
    return chosen.reduce((sum, s) => sum + s.rssMB, 0) / chosen.length;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
