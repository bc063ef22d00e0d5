// `npm run bench`: what the gateway adds, side by side. The reference v1 service (seeded for
// benchmarks, in a file database reused across runs), the gateway and a plain pass-through run as
// child processes; for each request shape, each target (gateway, pass-through, v1 called
// directly) is verified once, warmed up, then loaded with autocannon. v1 counts the calls it
// receives; /proc gives the children's CPU time and memory. Then a sustained mixed load checks
// that the gateway's memory stays flat, and the reference service's own search and export figures
// are taken on the hot device. Knobs: BENCH_* (see settings.ts and the report of this task).
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { Pool, request } from 'undici';
import { guardChildren, startChild, stopAllChildren, type BenchChild } from './children.ts';
import { BenchDatabase } from './database.ts';
import { autocannonLoad, closedLoopLoad, type HttpTarget, type LoadLength, type LoadResult } from './load.ts';
import type { V1Framework } from './mapping.ts';
import { cpuSeconds, memory, MemorySampler } from './proc.ts';
import { measureReferenceFigures, readSavedV1TrafficFigures } from './reference-figures.ts';
import { textReport, writeReports } from './report.ts';
import { TARGETS, TARGET_LABELS, type BenchResults, type ShapeResult, type SoakRound, type TargetFigures, type TargetName, type Verification } from './results.ts';
import { isSettingError, readSettings, type BenchSettings } from './settings.ts';
import { buildShapes, type PlainRequest, type Shape } from './shapes.ts';
import { evaluateTargets, isFlat } from './targets.ts';
import { compareCalls, firstDifference } from './verify.ts';

const SEED_TIMEOUT_MS = 15 * 60_000;
const START_TIMEOUT_MS = 60_000;
const HOT_DEVICE = '1';
/** Shape 1 reads an ordinary device, not the hot one. */
const TRAFFIC_DEVICE = '2';
const ORGANIZATION = '1';

const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class V1Failure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Stack {
  v1: BenchChild;
  v1Url: string;
  gateway: BenchChild;
  gatewayUrl: string;
  passthrough: BenchChild;
  passthroughUrl: string;
  /** The direct target's connections to v1 (as many as the gateway's pool). */
  directPool: Pool;
}

// --- Starting the processes ---------------------------------------------------------------------

async function v1Get<T>(url: string, key: string): Promise<T> {
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

async function startStack(settings: BenchSettings, db: BenchDatabase): Promise<Stack & { reused: boolean; startSeconds: number }> {
  const v1 = await startV1(settings, db);
  const gateway = startChild(
    'gateway',
    './gateway-service.ts',
    {
      HOST: '127.0.0.1',
      PORT: '0',
      UPSTREAM_URL: v1.url,
      LOG_LEVEL: settings.gatewayLogLevel,
      // As deployed: no landing page, no introspection (it changes nothing per request otherwise).
      NODE_ENV: 'production',
    },
    {
      // Its JSON request logs are written (a real cost of the gateway), to /dev/null unless asked for.
      output: settings.gatewayLogFile ? openSync(settings.gatewayLogFile, 'w') : 'ignore',
      nodeOptions: settings.gatewayProfile ? ['--cpu-prof', `--cpu-prof-dir=${join(settings.dir, 'profiles')}`] : [],
    },
  );
  const passthrough = startChild('pass-through', './passthrough.ts', { UPSTREAM_URL: v1.url, PORT: '0' });
  const [gatewayReady, passthroughReady] = await Promise.all([gateway.ready(START_TIMEOUT_MS), passthrough.ready(START_TIMEOUT_MS)]);
  log(`v1 ${v1.url} (pid ${v1.child.pid}), gateway ${gatewayReady.url} (pid ${gateway.pid}), pass-through ${passthroughReady.url} (pid ${passthrough.pid})`);
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

// --- Targets ----------------------------------------------------------------------------------------

const gatewayBodyOk = (body: string | Buffer | undefined) => {
  const text = String(body);
  return text.startsWith('{"data"') && !text.includes('"errors":[');
};
const v1BodyOk = (body: string | Buffer | undefined) => String(body).startsWith('{"error":0');

function gatewayTarget(stack: Stack, shape: Shape, key: string): HttpTarget {
  return {
    url: stack.gatewayUrl,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': key },
    body: JSON.stringify(shape.graphql),
    verifyBody: gatewayBodyOk,
  };
}

function plainTarget(base: string, plain: PlainRequest, key: string, verifyBody?: HttpTarget['verifyBody']): HttpTarget {
  return {
    url: base + plain.path,
    method: plain.method,
    headers: { 'x-service-token': key, accept: 'application/json', ...(plain.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(plain.body === undefined ? {} : { body: plain.body }),
    ...(verifyBody ? { verifyBody } : {}),
  };
}

/** One v1 call of the direct target's sequence: the body text, or a V1Failure. */
function directCall(stack: Stack, key: string) {
  return async (plain: PlainRequest): Promise<string> => {
    const answer = await stack.directPool.request({
      method: plain.method,
      path: plain.path,
      headers: { 'x-service-token': key, accept: 'application/json', ...(plain.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: plain.body,
    });
    const text = await answer.body.text();
    if (answer.statusCode !== 200 || !v1BodyOk(text)) throw new V1Failure(answer.statusCode, `${plain.method} ${plain.path}: ${answer.statusCode} ${text.slice(0, 200)}`);
    return text;
  };
}

function runLoad(stack: Stack, shape: Shape, target: TargetName, key: string, connections: number, length: LoadLength): Promise<LoadResult> {
  if (target === 'gateway') return autocannonLoad(gatewayTarget(stack, shape, key), connections, length);
  if (target === 'passthrough') return autocannonLoad(plainTarget(stack.passthroughUrl, shape.passthrough, key), connections, length);
  const direct = shape.direct;
  if (direct.kind === 'single') return autocannonLoad(plainTarget(stack.v1Url, direct.request, key, v1BodyOk), connections, length);
  const call = directCall(stack, key);
  return closedLoopLoad(() => direct.run(call), connections, length);
}

/** One request to a target, outside the load: its JSON (`data` for the gateway), or an error. */
async function once(stack: Stack, shape: Shape, target: TargetName, key: string): Promise<unknown> {
  if (target === 'direct') {
    const direct = shape.direct;
    const call = directCall(stack, key);
    if (direct.kind === 'single') return JSON.parse(await call(direct.request));
    return direct.run(call);
  }
  const t = target === 'gateway' ? gatewayTarget(stack, shape, key) : plainTarget(stack.passthroughUrl, shape.passthrough, key);
  const answer = await request(t.url, { method: t.method, headers: t.headers as Record<string, string>, body: t.body });
  const text = await answer.body.text();
  if (answer.statusCode !== 200) throw new Error(`${TARGET_LABELS[target]} answered ${answer.statusCode}: ${text.slice(0, 500)}`);
  const json = JSON.parse(text) as { data?: unknown; errors?: unknown[] };
  if (target === 'gateway') {
    if (json.errors?.length) throw new Error(`the gateway answered errors: ${JSON.stringify(json.errors).slice(0, 500)}`);
    return json.data;
  }
  return json;
}

async function verify(stack: Stack, shape: Shape, key: string): Promise<Verification> {
  const calls = {} as Verification['calls'];
  const answers = {} as Record<TargetName, unknown>;
  for (const target of TARGETS) {
    await stack.v1.ask('record');
    try {
      answers[target] = await once(stack, shape, target, key);
    } finally {
      calls[target] = (await stack.v1.ask<{ calls: string[] }>('recorded')).calls;
    }
  }
  const dataDifference = firstDifference(answers.gateway, answers.passthrough);
  return { sameData: dataDifference === undefined, ...(dataDifference ? { dataDifference } : {}), calls, ...compareCalls(calls) };
}

// --- Measuring --------------------------------------------------------------------------------------

async function v1Count(stack: Stack): Promise<number> {
  return (await stack.v1.ask<{ total: number }>('count')).total;
}

async function measure(stack: Stack, shape: Shape, target: TargetName, settings: BenchSettings, sampler: MemorySampler): Promise<TargetFigures> {
  const connections = settings.connections ?? shape.connections;
  // The measurement sends as many requests as the warm-up's pace fits in the duration, and waits
  // for every answer: no request is cut off at the end, so calls per request are exact.
  let length: LoadLength = { durationS: settings.durationS };
  if (settings.warmupS > 0) {
    sampler.mark(`${shape.id} warm-up ${TARGET_LABELS[target]}`);
    const warm = await runLoad(stack, shape, target, settings.key, connections, { durationS: settings.warmupS });
    if (warm.rps > 0) length = { amount: Math.max(connections * 4, Math.round(warm.rps * settings.durationS)) };
    // Requests cut off at the warm-up's end may still reach v1: let them land before counting.
    await sleep(200);
  }
  // Phase names: "<shape> <target>" (report.ts groups the memory chart by the first word).
  sampler.mark(`${shape.id} ${TARGET_LABELS[target]}`);
  const own = target === 'gateway' ? stack.gateway : target === 'passthrough' ? stack.passthrough : undefined;
  const callsBefore = await v1Count(stack);
  const cpuBefore = own ? cpuSeconds(own.pid) : 0;
  const v1CpuBefore = cpuSeconds(stack.v1.pid);
  const load = await runLoad(stack, shape, target, settings.key, connections, length);
  // Without a warm-up, requests in flight when the time ran out may still reach v1.
  if ('durationS' in length) await sleep(200);
  const calls = (await v1Count(stack)) - callsBefore;
  const responses = Math.max(1, load.responses);
  const figures: TargetFigures = {
    load,
    upstreamCallsPerRequest: calls / responses,
    cpuMsPerRequest: own ? ((cpuSeconds(own.pid) - cpuBefore) * 1000) / responses : null,
    v1CpuMsPerRequest: ((cpuSeconds(stack.v1.pid) - v1CpuBefore) * 1000) / responses,
  };
  const failures = load.non2xx + load.errors + load.bodyErrors;
  log(
    `  ${TARGET_LABELS[target].padEnd(12)} ${load.rps.toFixed(0).padStart(6)} rps  p50 ${load.latencyMs.p50.toFixed(2).padStart(7)} ms  ` +
      `p99 ${load.latencyMs.p99.toFixed(2).padStart(7)} ms  ${figures.upstreamCallsPerRequest.toFixed(2)} v1 calls/req` +
      (figures.cpuMsPerRequest === null ? '' : `  ${figures.cpuMsPerRequest.toFixed(3)} ms CPU/req`) +
      (failures ? `  ${load.non2xx} non-2xx, ${load.errors} errors, ${load.bodyErrors} error bodies` : ''),
  );
  return figures;
}

async function benchShape(stack: Stack, shape: Shape, settings: BenchSettings, sampler: MemorySampler): Promise<ShapeResult> {
  log(`\n${shape.id}. ${shape.title} (concurrency ${settings.connections ?? shape.connections})`);
  const verification = await verify(stack, shape, settings.key);
  log(
    `  verified: ${verification.sameData ? 'same data' : `DATA DIFFERS (${verification.dataDifference})`}; v1 calls per request: ` +
      `gateway ${verification.calls.gateway.length}, pass-through ${verification.calls.passthrough.length}, direct ${verification.calls.direct.length}` +
      (verification.sameCalls ? ', the same' : ', NOT THE SAME'),
  );
  const targets = {} as Record<TargetName, TargetFigures>;
  let gatewayRssAfterMB = NaN;
  for (const target of TARGETS) {
    targets[target] = await measure(stack, shape, target, settings, sampler);
    if (target === 'gateway') gatewayRssAfterMB = memory(stack.gateway.pid).rssMB;
  }
  const { gateway, passthrough, direct } = targets;
  return {
    id: shape.id,
    name: shape.name,
    title: shape.title,
    connections: settings.connections ?? shape.connections,
    verification,
    targets,
    ratios: {
      rpsGatewayToPassthrough: gateway.load.rps / passthrough.load.rps,
      rpsGatewayToDirect: gateway.load.rps / direct.load.rps,
      p50GatewayToPassthrough: gateway.load.latencyMs.p50 / passthrough.load.latencyMs.p50,
      p50GatewayToDirect: gateway.load.latencyMs.p50 / direct.load.latencyMs.p50,
      p99GatewayToPassthrough: gateway.load.latencyMs.p99 / passthrough.load.latencyMs.p99,
      p99GatewayToDirect: gateway.load.latencyMs.p99 / direct.load.latencyMs.p99,
    },
    gatewayRssAfterMB,
  };
}

/** Rounds of the gateway under every shape at once (autocannon cycles through them per connection). */
async function soak(stack: Stack, shapes: Shape[], settings: BenchSettings, sampler: MemorySampler): Promise<SoakRound[]> {
  if (settings.soakRounds === 0 || shapes.length === 0) return [];
  log(`\nSustained load: ${settings.soakRounds} rounds of ${settings.durationS} s, every shape mixed, on the gateway`);
  const requests = shapes.map((shape) => ({ method: 'POST' as const, path: new URL(stack.gatewayUrl).pathname, body: JSON.stringify(shape.graphql) }));
  const rounds: SoakRound[] = [];
  for (let round = 1; round <= settings.soakRounds; round++) {
    const phase = `soak ${round}`;
    sampler.mark(phase);
    const load = await autocannonLoad(
      { ...gatewayTarget(stack, shapes[0]!, settings.key), requests },
      settings.connections ?? 32,
      { durationS: settings.durationS },
    );
    const endMB = memory(stack.gateway.pid).rssMB;
    sampler.sample();
    const inRound = (name: string) => name === phase;
    rounds.push({
      round,
      rps: load.rps,
      peakMB: sampler.peak(inRound),
      meanMB: sampler.mean(inRound),
      endMB,
      non2xx: load.non2xx,
      errors: load.errors + load.bodyErrors,
    });
    const r = rounds.at(-1)!;
    log(`  round ${round}: ${r.rps.toFixed(0)} rps, gateway RSS mean ${r.meanMB.toFixed(1)} MB, peak ${r.peakMB.toFixed(1)} MB, end ${endMB.toFixed(1)} MB`);
  }
  return rounds;
}

// --- The run ------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  let settings: BenchSettings;
  try {
    settings = readSettings();
  } catch (error) {
    if (isSettingError(error)) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  guardChildren();
  mkdirSync(settings.dir, { recursive: true });
  const startedAt = new Date().toISOString();
  const db = new BenchDatabase(settings.dir, settings.seed);
  log(
    `Gateway vs pass-through vs direct v1: shapes ${settings.shapes.join(', ')}; ${settings.warmupS} s warm-up and about ` +
      `${settings.durationS} s per measurement; ${settings.soakRounds} sustained rounds; gateway LOG_LEVEL=${settings.gatewayLogLevel}`,
  );
  const stack = await startStack(settings, db);
  try {
    const sampler = new MemorySampler(stack.gateway.pid);
    const gatewayStartMB = memory(stack.gateway.pid).rssMB;

    const frameworks = await v1Get<{ data: V1Framework[] }>(`${stack.v1Url}/api/v1/organizations/${ORGANIZATION}/security-frameworks`, settings.key);
    const framework = frameworks.data[0];
    if (!framework) throw new Error(`organization ${ORGANIZATION} has no security framework to benchmark`);
    const shapes = buildShapes({ trafficDeviceId: TRAFFIC_DEVICE, organizationId: ORGANIZATION, framework }).filter((shape) =>
      settings.shapes.includes(shape.id),
    );

    const results: ShapeResult[] = [];
    for (const shape of shapes) results.push(await benchShape(stack, shape, settings, sampler));

    const rounds = await soak(stack, shapes, settings, sampler);
    sampler.mark('end');

    let reference: BenchResults['reference'] = null;
    if (settings.reference && settings.seed.hotTraffic > 0) {
      log(`\nReference service: search and CSV export on device ${HOT_DEVICE}`);
      try {
        reference = await measureReferenceFigures({
          v1Url: stack.v1Url,
          v1Pid: stack.v1.pid,
          key: settings.key,
          deviceId: HOT_DEVICE,
          searches: settings.searches,
          durationS: settings.durationS,
        });
      } catch (error) {
        reference = { error: error instanceof Error ? error.message : String(error) };
      }
    }

    sampler.sample();
    sampler.stop();
    const gatewayEndMB = memory(stack.gateway.pid).rssMB;
    const memoryFigures: BenchResults['memory'] = {
      gatewayStartMB,
      gatewayEndMB,
      gatewayPeakMB: sampler.peak(),
      soak: { rounds, ...isFlat(rounds.map((r) => r.meanMB)) },
      samples: sampler.samples,
    };
    const { key: _key, ...publicSettings } = settings;
    const report: BenchResults = {
      startedAt,
      finishedAt: new Date().toISOString(),
      machine: { cpus: availableParallelism(), node: process.version, platform: `${process.platform} ${process.arch}` },
      settings: publicSettings,
      database: { path: db.path, reused: stack.reused, startSeconds: stack.startSeconds },
      shapes: results,
      memory: memoryFigures,
      reference,
      savedV1Traffic: readSavedV1TrafficFigures(join(settings.dir, 'v1-traffic.json')),
      checks: evaluateTargets(results, memoryFigures),
    };
    log(`\n${textReport(report)}`);
    const files = writeReports(report, settings.dir);
    log(`\nWrote ${files.json} and ${files.html}`);
    if (settings.gatewayProfile) log(`The gateway's CPU profile goes to ${join(settings.dir, 'profiles')} when it stops (open it in Chrome DevTools).`);
  } finally {
    await stack.directPool.close();
    await stopAllChildren();
  }
}

main().catch(async (error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await stopAllChildren();
  process.exit(1);
});
