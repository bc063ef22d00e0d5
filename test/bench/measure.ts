// Measuring one shape on the three targets: each verified once (a success, the same data, the v1
// calls it takes), warmed up, then loaded while v1 counts the calls it receives and /proc gives
// the CPU time of the target's own process; and the sustained mixed load on the gateway.
import { request } from 'undici';
import { autocannonLoad, closedLoopLoad, summarize, type HttpTarget, type LoadLength, type LoadSample } from './load.ts';
import { cpuSeconds, memory, type MemorySampler } from './proc.ts';
import { TARGETS, TARGET_LABELS, type ShapeResult, type SoakRound, type TargetFigures, type TargetName, type Verification, type WarmUp } from './results.ts';
import type { BenchSettings } from './settings.ts';
import type { PlainRequest, Shape } from './shapes.ts';
import { V1Failure, type Stack } from './stack.ts';
import { compareCalls, firstDifference } from './verify.ts';

const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A target could not answer a shape once, before any measurement. */
export class VerificationFailure extends Error {}

// --- Targets ----------------------------------------------------------------------------------------

// Apollo writes `errors` before `data` (runHttpQuery's orderExecutionResultFields): an answer that
// starts with `data` has none. v1's success envelope starts with `error: 0`.
const gatewayBodyOk = (body: string | Buffer | undefined) => String(body).startsWith('{"data"');
const v1BodyOk = (body: string | Buffer | undefined) => String(body).startsWith('{"error":0');

function gatewayTarget(stack: Stack, shape: Shape, key: string): HttpTarget {
  return graphqlTarget(stack.gatewayUrl, shape, key);
}

/** A shape's GraphQL request to a gateway at `url`, answered without errors. */
export function graphqlTarget(url: string, shape: Shape, key: string): HttpTarget {
  return {
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': key },
    body: JSON.stringify(shape.graphql),
    verifyBody: gatewayBodyOk,
  };
}

export function plainTarget(base: string, plain: PlainRequest, key: string, verifyBody?: HttpTarget['verifyBody']): HttpTarget {
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

/** A stretch of load on a target, at the shape's concurrency. */
function runLoad(stack: Stack, shape: Shape, target: TargetName, key: string, length: LoadLength): Promise<LoadSample> {
  const { connections } = shape;
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
    } catch (error) {
      throw new VerificationFailure(`${TARGET_LABELS[target]}: ${error instanceof Error ? error.message : String(error)}`);
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

/** Waits until v1 has received no request for 300 ms (at most 10 s). */
async function quiet(stack: Stack): Promise<void> {
  const until = performance.now() + 10_000;
  let last = await v1Count(stack);
  while (performance.now() < until) {
    await sleep(300);
    const now = await v1Count(stack);
    if (now === last) return;
    last = now;
  }
}

/** One stretch of load on one target, with what it cost v1 and the target's own process. */
interface Stretch {
  load: LoadSample;
  calls: number;
  cpuS: number | null;
  v1CpuS: number;
}

/** How much faster than the best second before it a second may be and still count as steady. */
const STEADY_MARGIN = 0.1;
/** Seconds in a row that must be steady. */
const STEADY_SECONDS = 2;

/**
 * Whether the pace of these one-second slices has settled: the last STEADY_SECONDS were each no
 * more than STEADY_MARGIN faster than the best second before them. A target whose code the JIT is
 * still optimising speeds up second by second (a compiled gateway's first second can run at half
 * its pace); one that has settled only wavers.
 */
export function steadyPace(sliceRps: number[]): boolean {
  if (sliceRps.length <= STEADY_SECONDS) return false;
  for (let i = sliceRps.length - STEADY_SECONDS; i < sliceRps.length; i++) {
    const bestBefore = Math.max(...sliceRps.slice(0, i));
    if (sliceRps[i]! > bestBefore * (1 + STEADY_MARGIN)) return false;
  }
  return true;
}

/**
 * Loads a target in one-second slices (`slice`, then `settle` before the next) for `minS` seconds
 * at least and until its pace is steady (`steadyPace`), `maxS` at most: what the slices saw.
 */
export async function warmUntilSteady(slice: () => Promise<LoadSample>, settle: () => Promise<void>, minS: number, maxS: number): Promise<WarmUp> {
  const sliceRps: number[] = [];
  let seconds = 0;
  let steady = false;
  while (seconds < maxS) {
    const load = await slice();
    await settle();
    seconds += load.elapsedS;
    sliceRps.push(load.responses / load.elapsedS);
    steady = steadyPace(sliceRps);
    if (seconds >= minS && steady) break;
  }
  return { seconds, sliceRps, steady };
}

/**
 * Warms a target up until its pace is steady (`warmUntilSteady`, BENCH_WARMUP to BENCH_WARMUP_MAX
 * seconds): every target is measured at its own steady pace, not partly during its warm-up.
 * Returns the length of each measured stretch (as many requests as the steady pace fits in the
 * stretch's time, every one of them answered: no request is cut off at the end, so calls per
 * request are exact) and what the warm-up saw.
 */
async function warmUp(stack: Stack, shape: Shape, target: TargetName, settings: BenchSettings, sampler: MemorySampler): Promise<{ length: LoadLength; warmUp: WarmUp | null }> {
  const stretchS = settings.durationS / settings.rounds;
  if (settings.warmupS === 0) return { length: { durationS: stretchS }, warmUp: null };
  sampler.mark(`${shape.id} warm-up ${TARGET_LABELS[target]}`);
  const warmed = await warmUntilSteady(
    () => runLoad(stack, shape, target, settings.key, { durationS: 1 }),
    // Requests cut off at a slice's end may still reach v1 (a saturated gateway works through its
    // backlog after the clients left): the next slice, or the count, starts once v1 is quiet.
    () => quiet(stack),
    settings.warmupS,
    settings.warmupMaxS,
  );
  const rps = warmed.sliceRps.at(-1) ?? 0;
  const length = rps > 0 ? { amount: Math.max(shape.connections * 4, Math.round(rps * stretchS)) } : { durationS: stretchS };
  return { length, warmUp: warmed };
}

async function stretch(stack: Stack, shape: Shape, target: TargetName, settings: BenchSettings, sampler: MemorySampler, length: LoadLength): Promise<Stretch> {
  // Phase names: "<shape> <target>" (report.ts groups the memory chart by the first word).
  sampler.mark(`${shape.id} ${TARGET_LABELS[target]}`);
  const own = target === 'gateway' ? stack.gateway : target === 'passthrough' ? stack.passthrough : undefined;
  const callsBefore = await v1Count(stack);
  const cpuBefore = own ? cpuSeconds(own.pid) : 0;
  const v1CpuBefore = cpuSeconds(stack.v1.pid);
  const load = await runLoad(stack, shape, target, settings.key, length);
  // Without a warm-up, requests in flight when the time ran out may still reach v1.
  if ('durationS' in length) await quiet(stack);
  return {
    load,
    calls: (await v1Count(stack)) - callsBefore,
    cpuS: own ? cpuSeconds(own.pid) - cpuBefore : null,
    v1CpuS: cpuSeconds(stack.v1.pid) - v1CpuBefore,
  };
}

function figuresOf(stretches: Stretch[], warmUp: WarmUp | null): TargetFigures {
  const load = summarize(stretches.map((s) => s.load));
  const responses = Math.max(1, load.responses);
  const total = (pick: (s: Stretch) => number) => stretches.reduce((sum, s) => sum + pick(s), 0);
  const own = stretches.every((s) => s.cpuS !== null);
  return {
    load,
    upstreamCallsPerRequest: total((s) => s.calls) / responses,
    cpuMsPerRequest: own ? (total((s) => s.cpuS ?? 0) * 1000) / responses : null,
    v1CpuMsPerRequest: (total((s) => s.v1CpuS) * 1000) / responses,
    warmUp,
  };
}

function logFigures(target: TargetName, figures: TargetFigures): void {
  const { load } = figures;
  const failures = load.non2xx + load.errors + load.bodyErrors;
  log(
    `  ${TARGET_LABELS[target].padEnd(12)} ${load.rps.toFixed(0).padStart(6)} rps  p50 ${load.latencyMs.p50.toFixed(2).padStart(7)} ms  ` +
      `p99 ${load.latencyMs.p99.toFixed(2).padStart(7)} ms  ${figures.upstreamCallsPerRequest.toFixed(2)} v1 calls/req` +
      (figures.cpuMsPerRequest === null ? '' : `  ${figures.cpuMsPerRequest.toFixed(3)} ms CPU/req`) +
      (load.stretchRps.length > 1 ? `  (stretches: ${load.stretchRps.map((rps) => rps.toFixed(0)).join(', ')} rps)` : '') +
      (figures.warmUp ? `  warmed ${warmUpText(figures.warmUp)}` : '') +
      (failures ? `  ${load.non2xx} non-2xx, ${load.errors} errors, ${load.bodyErrors} error bodies` : ''),
  );
}

/** "6 s (670 … 1,520 rps)": the warm-up's length and its first and last seconds' pace. */
export function warmUpText(warmUp: WarmUp): string {
  const first = warmUp.sliceRps[0] ?? 0;
  const last = warmUp.sliceRps.at(-1) ?? 0;
  return `${warmUp.seconds.toFixed(0)} s (${first.toFixed(0)} … ${last.toFixed(0)} rps${warmUp.steady ? '' : ', not yet steady'})`;
}

/**
 * The three targets in `rounds` stretches each, in the order gateway, pass-through, direct, then
 * the reverse, and so on (A B C C B A): a drift of the machine's speed during the measurement
 * weighs on every target alike instead of on the one measured last.
 */
async function measureTargets(stack: Stack, shape: Shape, settings: BenchSettings, sampler: MemorySampler): Promise<Record<TargetName, TargetFigures>> {
  const lengths = {} as Record<TargetName, LoadLength>;
  const warmUps = {} as Record<TargetName, WarmUp | null>;
  for (const target of TARGETS) ({ length: lengths[target], warmUp: warmUps[target] } = await warmUp(stack, shape, target, settings, sampler));
  const stretches: Record<TargetName, Stretch[]> = { gateway: [], passthrough: [], direct: [] };
  for (let round = 0; round < settings.rounds; round++) {
    for (const target of round % 2 === 0 ? TARGETS : [...TARGETS].reverse()) {
      stretches[target].push(await stretch(stack, shape, target, settings, sampler, lengths[target]));
    }
  }
  const figures = {} as Record<TargetName, TargetFigures>;
  for (const target of TARGETS) {
    figures[target] = figuresOf(stretches[target], warmUps[target]);
    logFigures(target, figures[target]);
  }
  return figures;
}

export async function benchShape(stack: Stack, shape: Shape, settings: BenchSettings, sampler: MemorySampler): Promise<ShapeResult> {
  log(`\n${shape.id}. ${shape.title} (concurrency ${shape.connections})`);
  const verification = await verify(stack, shape, settings.key);
  log(
    `  verified: ${verification.sameData ? 'same data' : `DATA DIFFERS (${verification.dataDifference})`}; v1 calls per request: ` +
      `gateway ${verification.calls.gateway.length}, pass-through ${verification.calls.passthrough.length}, direct ${verification.calls.direct.length}` +
      (verification.sameCalls ? ', the same' : ', NOT THE SAME'),
  );
  const targets = await measureTargets(stack, shape, settings, sampler);
  const gatewayRssAfterMB = memory(stack.gateway.pid).rssMB;
  const { gateway, passthrough, direct } = targets;
  return {
    id: shape.id,
    name: shape.name,
    title: shape.title,
    connections: shape.connections,
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
export async function soak(stack: Stack, shapes: Shape[], settings: BenchSettings, sampler: MemorySampler): Promise<SoakRound[]> {
  if (settings.soakRounds === 0 || shapes.length === 0) return [];
  log(`\nSustained load: ${settings.soakRounds} rounds of ${settings.durationS} s, every shape mixed, on the gateway`);
  const requests = shapes.map((shape) => ({ method: 'POST' as const, path: new URL(stack.gatewayUrl).pathname, body: JSON.stringify(shape.graphql) }));
  const rounds: SoakRound[] = [];
  for (let round = 1; round <= settings.soakRounds; round++) {
    const phase = `soak ${round}`;
    sampler.mark(phase);
    const callsBefore = await v1Count(stack);
    const load = summarize([
      await autocannonLoad({ ...gatewayTarget(stack, shapes[0]!, settings.key), requests }, settings.connections ?? 32, {
        durationS: settings.durationS,
      }),
    ]);
    const endMB = memory(stack.gateway.pid).rssMB;
    sampler.sample();
    const inRound = (name: string) => name === phase;
    rounds.push({
      round,
      rps: load.rps,
      peakMB: sampler.peak(inRound),
      meanMB: sampler.mean(inRound),
      endMB,
      upstreamCallsPerRequest: ((await v1Count(stack)) - callsBefore) / Math.max(1, load.responses),
      non2xx: load.non2xx,
      errors: load.errors + load.bodyErrors,
    });
    const r = rounds.at(-1)!;
    log(
      `  round ${round}: ${r.rps.toFixed(0)} rps (${r.upstreamCallsPerRequest.toFixed(1)} v1 calls/req, ${r.non2xx} non-2xx, ${r.errors} errors), ` +
        `gateway RSS mean ${r.meanMB.toFixed(1)} MB, peak ${r.peakMB.toFixed(1)} MB, end ${endMB.toFixed(1)} MB`,
    );
  }
  return rounds;
}
