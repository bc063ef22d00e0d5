// The benchmark's knobs, read from BENCH_* environment variables in one place. A bad value stops
// the run with one line naming the variable, before any process starts.
//
//   BENCH_DURATION=5       seconds measured per shape and target (BENCH_DURATION=2: a quick run)
//   BENCH_WARMUP=1         at least this many seconds of warm-up before each target's measurement
//   BENCH_WARMUP_MAX=20    at most this many: the warm-up goes on, second by second, until the pace is steady
//   BENCH_ROUNDS=2         stretches per measurement, taken in turns across the targets
//   BENCH_CONNECTIONS      concurrency for every shape (default: each shape's own, 32 or 16)
//   BENCH_SHAPES=1,2,3,4,5 which shapes
//   BENCH_SOAK_ROUNDS=4    rounds of sustained mixed load on the gateway (memory flatness)
//   BENCH_SOAK_S=180       seconds of the soak: every surface at once on a gateway of its own (0 skips it; 1200: the 20-minute soak)
//   BENCH_ONLY=soak        run that part alone (the shapes, start-up and every other part skipped)
//   BENCH_DEVICES=1000, BENCH_TRAFFIC=100000, BENCH_HOT_TRAFFIC=1000000   the database's sizes
//   BENCH_DIR=.bench       database, results.json, results.html
//   BENCH_GATEWAY_LOG_LEVEL=info, BENCH_GATEWAY_LOG_FILE, BENCH_GATEWAY_PROFILE=1
//   BENCH_GATEWAY_NODE_FLAGS   extra node flags for the gateway only (e.g. heap sizes, to try them)
//   BENCH_REFERENCE=0      skip the reference service's search and export figures
//   BENCH_EXPORT=0         skip the export through the gateway's link against v1's own (the hot device)
//   BENCH_TAIL=0           skip the live traffic tail (1,000 subscribers over 50 devices, 100 entries/s)
//   BENCH_PRODUCTION=0     skip the production settings (throttling, tracing, response cache) against the defaults
//   BENCH_REPLICAS=0       skip GATEWAY_WORKERS=2 with Redis against one worker (needs redis-server)
//   BENCH_STARTUP=0        skip timing the gateway's start to its first answered query
//   BENCH_SEARCHES         comma-separated two-term searches for those figures
//   BENCH_KEY=demo-admin-key
import { resolve } from 'node:path';

export interface BenchSettings {
  /** Seconds of measurement per shape and target (all its stretches together). */
  durationS: number;
  /**
   * Seconds of unmeasured load before each measurement, at least: it goes on a second at a time
   * until the target's pace is steady (measure.ts, `warmUp`), up to `warmupMaxS`. 0: none.
   */
  warmupS: number;
  /** Seconds of warm-up at most. */
  warmupMaxS: number;
  /** Stretches each measurement is cut into, taken in turns across the targets (A B C C B A …). */
  rounds: number;
  /** Concurrency for every shape; undefined keeps each shape's own. */
  connections: number | undefined;
  /** Shape numbers to run (1–5). */
  shapes: number[];
  /** Rounds of the sustained-load phase that checks the gateway's memory stays flat. */
  soakRounds: number;
  /** Seconds of the soak (soak.ts): every surface at once, adversarial clients among them; 0 skips it. */
  soakS: number;
  /** One part run alone, the others skipped; undefined runs them all. */
  only: 'soak' | undefined;
  seed: { devices: number; traffic: number; hotTraffic: number };
  /** Where the database, results.json and results.html go. */
  dir: string;
  /** The gateway's LOG_LEVEL during the run (its own default: info, one line per request). */
  gatewayLogLevel: string;
  /** Where the gateway's JSON logs go; undefined: nowhere (they are still produced, a real cost). */
  gatewayLogFile: string | undefined;
  /** Write a CPU profile of the gateway (`--cpu-prof`) into <dir>/profiles. */
  gatewayProfile: boolean;
  /** Extra node command-line flags for the gateway alone. */
  gatewayNodeFlags: string[];
  /** The two-term searches of the reference figures. */
  searches: string[];
  /** Measure the reference service's search and export on the hot device. */
  reference: boolean;
  /** Measure an export through the gateway against v1's own. */
  export: boolean;
  /** Measure the live traffic tail. */
  tail: boolean;
  /** Measure throttling and tracing on, and the response cache, against the defaults. */
  production: boolean;
  /** Measure two workers sharing a Redis against one worker. */
  replicas: boolean;
  /** Time the compiled gateway's start to its first answered query. */
  startup: boolean;
  key: string;
}

type Env = Record<string, string | undefined>;

/** An attack source's address fragment and a word of the log lines, as an analyst would search. */
const DEFAULT_SEARCHES = '203.0.113 sqlmap,198.51.100 wp-login,203.0.113 nikto,192.0.2 sqlmap,198.51.100 passwd,POST 203.0.113';

class SettingError extends Error {
  override name = 'SettingError';
}

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function number(env: Env, name: string, fallback: number, min: number, max: number, integer = false): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new SettingError(`${name}: expected ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function shapeList(env: Env, name: string): number[] {
  const raw = read(env, name);
  if (raw === undefined) return [1, 2, 3, 4, 5];
  const shapes = raw.split(',').map((part) => Number(part.trim()));
  if (shapes.some((shape) => !Number.isInteger(shape) || shape < 1 || shape > 5)) {
    throw new SettingError(`${name}: expected shape numbers from 1 to 5 separated by commas, got "${raw}"`);
  }
  return [...new Set(shapes)].sort();
}

/** The parts that can run alone. */
const ALONE = ['soak'] as const;

function only(env: Env, name: string): BenchSettings['only'] {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  const part = ALONE.find((candidate) => candidate === raw);
  if (part === undefined) throw new SettingError(`${name}: expected one of ${ALONE.join(', ')}, got "${raw}"`);
  return part;
}

export function readSettings(env: Env = process.env): BenchSettings {
  const connections = read(env, 'BENCH_CONNECTIONS') === undefined ? undefined : number(env, 'BENCH_CONNECTIONS', 32, 1, 1024, true);
  return {
    durationS: number(env, 'BENCH_DURATION', 5, 1, 600),
    warmupS: number(env, 'BENCH_WARMUP', 1, 0, 60),
    warmupMaxS: number(env, 'BENCH_WARMUP_MAX', 20, 1, 120),
    rounds: number(env, 'BENCH_ROUNDS', 2, 1, 20, true),
    connections,
    shapes: shapeList(env, 'BENCH_SHAPES'),
    soakRounds: number(env, 'BENCH_SOAK_ROUNDS', 4, 0, 100, true),
    soakS: number(env, 'BENCH_SOAK_S', 180, 0, 86_400, true),
    only: only(env, 'BENCH_ONLY'),
    seed: {
      devices: number(env, 'BENCH_DEVICES', 1_000, 21, 1_000_000, true),
      traffic: number(env, 'BENCH_TRAFFIC', 100_000, 1, 100_000_000, true),
      hotTraffic: number(env, 'BENCH_HOT_TRAFFIC', 1_000_000, 0, 100_000_000, true),
    },
    dir: resolve(read(env, 'BENCH_DIR') ?? '.bench'),
    gatewayLogLevel: read(env, 'BENCH_GATEWAY_LOG_LEVEL') ?? 'info',
    gatewayLogFile: read(env, 'BENCH_GATEWAY_LOG_FILE'),
    gatewayProfile: read(env, 'BENCH_GATEWAY_PROFILE') === '1',
    gatewayNodeFlags: (read(env, 'BENCH_GATEWAY_NODE_FLAGS') ?? '').split(/\s+/).filter(Boolean),
    searches: (read(env, 'BENCH_SEARCHES') ?? DEFAULT_SEARCHES).split(',').map((search) => search.trim()).filter(Boolean),
    reference: (read(env, 'BENCH_REFERENCE') ?? '1') !== '0',
    tail: (read(env, 'BENCH_TAIL') ?? '1') !== '0',
    production: (read(env, 'BENCH_PRODUCTION') ?? '1') !== '0',
    replicas: (read(env, 'BENCH_REPLICAS') ?? '1') !== '0',
    startup: (read(env, 'BENCH_STARTUP') ?? '1') !== '0',
    export: (read(env, 'BENCH_EXPORT') ?? '1') !== '0',
    key: read(env, 'BENCH_KEY') ?? 'demo-admin-key',
  };
}

export function isSettingError(error: unknown): error is Error {
  return error instanceof SettingError;
}

/** The warm-up, in words: "a warm-up of 1 to 20 s, until steady". */
export function warmUpSetting(settings: Pick<BenchSettings, 'warmupS' | 'warmupMaxS'>): string {
  return settings.warmupS === 0 ? 'no warm-up' : `a warm-up of ${settings.warmupS} to ${settings.warmupMaxS} s, until steady`;
}
