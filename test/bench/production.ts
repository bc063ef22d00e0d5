// What the production settings cost, side by side with the gateway as `npm start` runs it: the
// same shapes, in alternating stretches (baseline, variant, variant, baseline…), on two gateways
// started together that differ by one setting:
//
// - throttling on, with a budget this load never exhausts (every request still reserves and settles);
// - tracing on, every span exported over OTLP/HTTP to a real receiver in this process;
// - the response cache on a repeated read: the cached gateway's rps against the pass-through's.
import { autocannonLoad, summarize, type LoadSample } from './load.ts';
import { graphqlTarget, plainTarget, warmUntilSteady } from './measure.ts';
import type { BenchSettings } from './settings.ts';
import type { Shape } from './shapes.ts';
import { startGatewayChild, type Stack } from './stack.ts';
import type { BenchChild } from './children.ts';
import { cpuSeconds } from './proc.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const START_TIMEOUT_MS = 60_000;

export interface VariantFigures {
  variant: 'throttle' | 'tracing' | 'tracing-10%' | 'cache';
  shapeId: number;
  shapeName: string;
  /** What the variant is compared with: the default gateway, or (cache) the pass-through. */
  against: 'gateway' | 'passthrough';
  baselineRps: number;
  variantRps: number;
  /** variantRps / baselineRps. */
  ratio: number;
  /** The CPU time of the gateway process per request (the variant's and the default gateway's), ms; null against the pass-through. */
  variantCpuMs: number | null;
  baselineCpuMs: number | null;
  /** baselineCpuMs / variantCpuMs: what the variant leaves of the gateway's throughput per core. */
  cpuRatio: number | null;
  variantNon2xx: number;
}

export interface ProductionFigures {
  variants: VariantFigures[];
  /** Spans the receiver decoded during the tracing variant (that tracing really ran). */
  spansReceived: number;
}

interface Variant {
  name: VariantFigures['variant'];
  env: Record<string, string>;
  against: VariantFigures['against'];
  /** Which shapes it is measured on. */
  shapes: (shape: Shape) => boolean;
}

export interface Side {
  load: () => Promise<LoadSample>;
  /** The process whose CPU time is counted, when it is a gateway. */
  pid: number | undefined;
}

export interface Measured {
  load: ReturnType<typeof summarize>;
  cpuMs: number | null;
}

export async function alternate(baseline: Side, variant: Side, rounds: number): Promise<{ baseline: Measured; variant: Measured }> {
  const samples = { baseline: [] as LoadSample[], variant: [] as LoadSample[] };
  const cpu = { baseline: 0, variant: 0 };
  const run = async (name: 'baseline' | 'variant', side: Side) => {
    const before = side.pid === undefined ? 0 : cpuSeconds(side.pid);
    samples[name].push(await side.load());
    if (side.pid !== undefined) cpu[name] += cpuSeconds(side.pid) - before;
  };
  for (let round = 0; round < rounds; round++) {
    // A B B A …: a drift of the machine's speed weighs on both alike.
    if (round % 2 === 0) {
      await run('baseline', baseline);
      await run('variant', variant);
    } else {
      await run('variant', variant);
      await run('baseline', baseline);
    }
  }
  const measured = (name: 'baseline' | 'variant', side: Side): Measured => {
    const load = summarize(samples[name]);
    return { load, cpuMs: side.pid === undefined || load.responses === 0 ? null : (cpu[name] * 1000) / load.responses };
  };
  return { baseline: measured('baseline', baseline), variant: measured('variant', variant) };
}

/**
 * An OTLP/HTTP receiver as light as one can be (it answers and counts spans by their ids' key,
 * without decoding): it shares the machine with the load generator, and must not slow it.
 */
async function startSpanSink(): Promise<{ url: string; spans: () => number; close: () => Promise<void> }> {
  let spans = 0;
  const server = createServer((req, res) => {
    let tail = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      const text = tail + chunk;
      spans += text.split('"spanId"').length - 1;
      tail = text.slice(-8);
    });
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function benchProduction(stack: Stack, shapes: Shape[], settings: BenchSettings, log: (line: string) => void): Promise<ProductionFigures> {
  const receiver = await startSpanSink();
  const variants: Variant[] = [
    // 10 million calls restored 10 million a second: never refused, every request still throttled.
    { name: 'throttle', env: { RATE_LIMIT_CALLS: '10000000', RATE_LIMIT_RESTORE_PER_S: '10000000' }, against: 'gateway', shapes: () => true },
    // Every request sampled (the SDK's default, parent-based always-on), batches at the SDK's defaults.
    { name: 'tracing', env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, against: 'gateway', shapes: () => true },
    // As the README recommends for production: a tenth of the traces (a client's sampled traceparent still is).
    {
      name: 'tracing-10%',
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
      against: 'gateway',
      shapes: () => true,
    },
    // A repeated read: the mutation (shape 5) is never cached.
    { name: 'cache', env: { RESPONSE_CACHE_TTL_S: '60' }, against: 'passthrough', shapes: (shape) => shape.id !== 5 },
  ];
  const figures: VariantFigures[] = [];
  const stretchS = Math.max(1, settings.durationS / settings.rounds);
  try {
    for (const variant of variants) {
      const children: BenchChild[] = [];
      try {
        // Against a default gateway started with it: two processes of the same age (a fresh one
        // spends its first minute compiling and growing its heap; the run's own gateway is long past that).
        const child = startGatewayChild(`gateway (${variant.name})`, settings, stack.v1Url, variant.env);
        children.push(child);
        const twin = variant.against === 'gateway' ? startGatewayChild('gateway (defaults)', settings, stack.v1Url) : undefined;
        if (twin) children.push(twin);
        const [{ url }, twinReady] = await Promise.all([child.ready(START_TIMEOUT_MS), twin?.ready(START_TIMEOUT_MS)]);
        const selected = shapes.filter(variant.shapes);
        const targets = (shape: Shape) => ({
          variant: graphqlTarget(url, shape, settings.key),
          baseline: twinReady ? graphqlTarget(twinReady.url, shape, settings.key) : plainTarget(stack.passthroughUrl, shape.passthrough, settings.key),
        });
        // Both warmed on every shape before any is measured, each until its pace is steady: a
        // fresh gateway's first seconds run at a fraction of its pace, and one with more code to
        // optimise (tracing's) climbs for longer.
        // Without a warm-up asked for (BENCH_WARMUP=0, a quick run), one second each.
        const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 300));
        const [minS, maxS] = settings.warmupS === 0 ? [1, 1] : [settings.warmupS, settings.warmupMaxS];
        for (const shape of selected) {
          const { variant: v, baseline: b } = targets(shape);
          await warmUntilSteady(() => autocannonLoad(v, shape.connections, { durationS: 1 }), settle, minS, maxS);
          await warmUntilSteady(() => autocannonLoad(b, shape.connections, { durationS: 1 }), settle, minS, maxS);
        }
        for (const shape of selected) {
          const { variant: variantTarget, baseline: baselineTarget } = targets(shape);
          const measured = await alternate(
            { load: () => autocannonLoad(baselineTarget, shape.connections, { durationS: stretchS }), pid: twin?.pid },
            { load: () => autocannonLoad(variantTarget, shape.connections, { durationS: stretchS }), pid: child.pid },
            settings.rounds,
          );
          const { cpuMs: variantCpuMs } = measured.variant;
          const { cpuMs: baselineCpuMs } = measured.baseline;
          const result: VariantFigures = {
            variant: variant.name,
            shapeId: shape.id,
            shapeName: shape.name,
            against: variant.against,
            baselineRps: measured.baseline.load.rps,
            variantRps: measured.variant.load.rps,
            ratio: measured.baseline.load.rps > 0 ? measured.variant.load.rps / measured.baseline.load.rps : 0,
            variantCpuMs,
            baselineCpuMs,
            cpuRatio: variantCpuMs !== null && baselineCpuMs !== null && variantCpuMs > 0 ? baselineCpuMs / variantCpuMs : null,
            variantNon2xx: measured.variant.load.non2xx + measured.variant.load.errors + measured.variant.load.bodyErrors,
          };
          figures.push(result);
          log(
            `  ${variant.name.padEnd(11)} shape ${shape.id} ${shape.name.padEnd(16)} ${result.variantRps.toFixed(0).padStart(6)} rps vs ${variant.against} ` +
              `${result.baselineRps.toFixed(0).padStart(6)} rps = ${result.ratio.toFixed(2)} x` +
              (result.cpuRatio === null ? '' : `; CPU ${result.variantCpuMs!.toFixed(3)} vs ${result.baselineCpuMs!.toFixed(3)} ms/req = ${result.cpuRatio.toFixed(2)} x`) +
              (result.variantNon2xx ? `  ${result.variantNon2xx} failures` : ''),
          );
        }
      } finally {
        await Promise.all(children.map((child) => child.stop()));
      }
    }
    return { variants: figures, spansReceived: receiver.spans() };
  } finally {
    await receiver.close();
  }
}
