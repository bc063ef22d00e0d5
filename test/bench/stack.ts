// The benchmark's processes: the reference v1 service on the benchmark database (seeded when it is
// not a complete one of the asked sizes), the gateway and the pass-through in front of it, each a
// child process of run.ts.
import { existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { Pool, request } from 'undici';
import { startCommandLine, startEnv, startFlags } from '../helpers/start-command.ts';
import { startChild, type BenchChild } from './children.ts';
import type { BenchDatabase } from './database.ts';
import type { BenchSettings } from './settings.ts';

const SEED_TIMEOUT_MS = 15 * 60_000;
const START_TIMEOUT_MS = 60_000;
/** The gateway's bundle, as `npm start` runs it (a URL: startChild runs it with plain node). */
export const GATEWAY_ENTRY = new URL('../../dist/main.js', import.meta.url);

/** Stops the run at once when the build is missing (`npm run bench` builds it before the run). */
function requireBuiltGateway(): void {
  if (!existsSync(GATEWAY_ENTRY)) throw new Error('dist/main.js is missing: `npm run bench` builds it (or run `npm run build` first)');
}

/** The device that holds the million entries (the seeding's hot device). */
export const HOT_DEVICE = '1';

const log = (line: string) => process.stdout.write(`${line}\n`);

/** A v1 answer other than 200. */
export class V1Failure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface Stack {
  v1: BenchChild;
  v1Url: string;
  gateway: BenchChild;
  gatewayUrl: string;
  passthrough: BenchChild;
  passthroughUrl: string;
  /** The direct target's connections to v1 (as many as the gateway's pool). */
  directPool: Pool;
  /** The database was a complete one from an earlier run. */
  reused: boolean;
  /** Seconds until v1 listened (seeding included). */
  startSeconds: number;
}

export async function v1Get<T>(url: string, key: string): Promise<T> {
  const answer = await request(url, { headers: { 'x-service-token': key, accept: 'application/json' } });
  const text = await answer.body.text();
  if (answer.statusCode !== 200) throw new V1Failure(answer.statusCode, `GET ${new URL(url).pathname}${new URL(url).search}: ${answer.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** Starts v1 on the benchmark database; seeds it when it is not a complete one of these sizes. */
async function startV1(settings: BenchSettings, db: BenchDatabase): Promise<{ child: BenchChild; url: string; reused: boolean; seconds: number }> {
  for (let attempt = 0; ; attempt++) {
    const reused = db.reusable;
    if (!reused) db.discard();
    const { devices, traffic, hotTraffic } = settings.seed;
    log(
      reused
        ? `v1: reusing ${db.path}`
        : `v1: seeding ${db.path}: ${devices} devices, ${traffic} traffic entries spread, ${hotTraffic} on device ${HOT_DEVICE} (first run only; this takes a while)`,
    );
    if (reused) {
      const warming = performance.now();
      const megabytes = db.warmPageCache();
      log(`v1: read the database once (${megabytes.toFixed(0)} MB in ${((performance.now() - warming) / 1000).toFixed(1)} s) so that it is in the page cache, as a running service's is`);
    }
    const started = performance.now();
    const child = startChild('v1 service', './v1-service.ts', {
      V1_HOST: '127.0.0.1',
      V1_PORT: '0',
      V1_DATABASE: db.path,
      V1_SEED: 'demo',
      V1_SEED_DEVICES: String(devices),
      V1_SEED_TRAFFIC: String(traffic),
      V1_SEED_HOT_TRAFFIC: String(hotTraffic),
      V1_SIMULATE_TRAFFIC: '0',
      V1_API_KEYS: '',
    });
    const { url } = await child.ready(reused ? START_TIMEOUT_MS : SEED_TIMEOUT_MS);
    const seconds = (performance.now() - started) / 1000;

    // The sizes as the service reports them through its own contract.
    const problems: string[] = [];
    try {
      const deviceList = await v1Get<{ total: number }>(`${url}/api/v1/atb?limit=1`, settings.key);
      if (deviceList.total !== devices) problems.push(`${deviceList.total} devices, expected ${devices}`);
      const hot = await v1Get<{ total: number }>(`${url}/api/v1/atb/${HOT_DEVICE}/traffic?limit=1`, settings.key);
      if (hot.total < hotTraffic) problems.push(`device ${HOT_DEVICE} has ${hot.total} traffic entries, expected at least ${hotTraffic}`);
    } catch (error) {
      if (error instanceof V1Failure && error.status === 401) {
        throw new Error(`v1 refuses the key (BENCH_KEY, default the demo admin key): ${error.message}`);
      }
      throw error;
    }
    if (problems.length === 0) {
      if (!reused) db.markSeeded();
      return { child, url, reused, seconds };
    }
    await child.stop();
    if (!reused || attempt > 0) throw new Error(`v1 seeded with the wrong sizes: ${problems.join('; ')}`);
    log(`v1: the database does not hold what its marker says (${problems.join('; ')}): seeding it anew`);
    db.discard();
  }
}

/** npm start's flags, then BENCH_GATEWAY_NODE_FLAGS and the profiler's: one list, given and logged. */
function gatewayNodeFlags(settings: BenchSettings): { flags: string[]; benchFlags: string[] } {
  const benchFlags = [
    ...settings.gatewayNodeFlags,
    ...(settings.gatewayProfile ? ['--cpu-prof', `--cpu-prof-dir=${join(settings.dir, 'profiles')}`] : []),
  ];
  return { flags: [...startFlags(), ...benchFlags], benchFlags };
}

/**
 * A gateway as deployed (no landing page, no introspection, no schema details in errors) in front
 * of `v1Url`, with `env`'s settings over its defaults. Its JSON request logs are written (a real
 * cost of the gateway), to /dev/null unless asked for.
 */
export function startGatewayChild(name: string, settings: BenchSettings, v1Url: string, env: Record<string, string> = {}): BenchChild {
  requireBuiltGateway();
  return startChild(
    name,
    GATEWAY_ENTRY,
    { ...startEnv(), HOST: '127.0.0.1', PORT: '0', UPSTREAM_URL: v1Url, LOG_LEVEL: settings.gatewayLogLevel, NODE_ENV: 'production', ...env },
    { output: settings.gatewayLogFile ? openSync(settings.gatewayLogFile, 'w') : 'ignore', nodeOptions: gatewayNodeFlags(settings).flags },
  );
}

export async function startStack(settings: BenchSettings, db: BenchDatabase): Promise<Stack> {
  const { flags: gatewayFlags, benchFlags } = gatewayNodeFlags(settings);
  requireBuiltGateway();
  const v1 = await startV1(settings, db);
  // The tail bench follows 50 devices with one key: 50 pollers, past TAIL_MAX_POLLERS_PER_KEY's default of 5.
  const gateway = startGatewayChild('gateway', settings, v1.url, { TAIL_MAX_POLLERS_PER_KEY: '50' });
  const passthrough = startChild('pass-through', './passthrough.ts', { UPSTREAM_URL: v1.url, PORT: '0' });
  const [gatewayReady, passthroughReady] = await Promise.all([gateway.ready(START_TIMEOUT_MS), passthrough.ready(START_TIMEOUT_MS)]);
  log(`v1 ${v1.url} (pid ${v1.child.pid}), gateway ${gatewayReady.url} (pid ${gateway.pid}), pass-through ${passthroughReady.url} (pid ${passthrough.pid})`);
  log(`gateway: ${startCommandLine(benchFlags)} (npm start's settings${benchFlags.length ? ", then the benchmark's own flags" : ''})`);
  return {
    v1: v1.child,
    v1Url: v1.url,
    gateway,
    gatewayUrl: gatewayReady.url,
    passthrough,
    passthroughUrl: passthroughReady.url,
    directPool: new Pool(v1.url, { connections: 64, pipelining: 1, keepAliveTimeout: 4_000 }),
    reused: v1.reused,
    startSeconds: v1.seconds,
  };
}
