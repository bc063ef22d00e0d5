// What the production settings cost, side by side with the gateway as `npm start` runs it: the
// same shapes, in alternating stretches (baseline, variant, variant, baseline…), on gateways that
// differ by one setting:
//
// - throttling on, with a budget this load never exhausts (every request still reserves and settles);
// - tracing on, every span exported over OTLP/HTTP to a real receiver in this process;
// - the response cache on a repeated read: the cached gateway's rps against the pass-through's.
import { autocannonLoad, summarize, type LoadSample } from './load.ts';
import { graphqlTarget, plainTarget } from './measure.ts';
import type { BenchSettings } from './settings.ts';
import type { Shape } from './shapes.ts';
import { startGatewayChild, type Stack } from './stack.ts';
import type { BenchChild } from './children.ts';
import { startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const START_TIMEOUT_MS = 60_000;

export interface VariantFigures {
  variant: 'throttle' | 'tracing' | 'cache';
  shapeId: number;
  shapeName: string;
  /** What the variant is compared with: the default gateway, or (cache) the pass-through. */
  against: 'gateway' | 'passthrough';
  baselineRps: number;
  variantRps: number;
  /** variantRps / baselineRps. */
  ratio: number;
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

async function alternate(
  baseline: () => Promise<LoadSample>,
  variant: () => Promise<LoadSample>,
  rounds: number,
): Promise<{ baseline: ReturnType<typeof summarize>; variant: ReturnType<typeof summarize> }> {
  const a: LoadSample[] = [];
  const b: LoadSample[] = [];
  for (let round = 0; round < rounds; round++) {
    // A B B A …: a drift of the machine's speed weighs on both alike.
    if (round % 2 === 0) {
      a.push(await baseline());
      b.push(await variant());
    } else {
      b.push(await variant());
      a.push(await baseline());
    }
  }
  return { baseline: summarize(a), variant: summarize(b) };
}

export async function benchProduction(stack: Stack, shapes: Shape[], settings: BenchSettings, log: (line: string) => void): Promise<ProductionFigures> {
  const receiver = await startOtlpReceiver();
  const variants: Variant[] = [
    // 10 million calls restored 10 million a second: never refused, every request still throttled.
    { name: 'throttle', env: { RATE_LIMIT_CALLS: '10000000', RATE_LIMIT_RESTORE_PER_S: '10000000' }, against: 'gateway', shapes: () => true },
    { name: 'tracing', env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '200' }, against: 'gateway', shapes: () => true },
    // A repeated read: the mutation (shape 5) is never cached.
    { name: 'cache', env: { RESPONSE_CACHE_TTL_S: '60' }, against: 'passthrough', shapes: (shape) => shape.id !== 5 },
  ];
  const figures: VariantFigures[] = [];
  const stretchS = Math.max(1, settings.durationS / settings.rounds);
  try {
    for (const variant of variants) {
      let child: BenchChild | undefined;
      try {
        child = startGatewayChild(`gateway (${variant.name})`, settings, stack.v1Url, variant.env);
        const { url } = await child.ready(START_TIMEOUT_MS);
        for (const shape of shapes.filter(variant.shapes)) {
          const variantTarget = graphqlTarget(url, shape, settings.key);
          const baselineTarget =
            variant.against === 'gateway' ? graphqlTarget(stack.gatewayUrl, shape, settings.key) : plainTarget(stack.passthroughUrl, shape.passthrough, settings.key);
          if (settings.warmupS > 0) {
            await autocannonLoad(variantTarget, shape.connections, { durationS: settings.warmupS });
            await autocannonLoad(baselineTarget, shape.connections, { durationS: settings.warmupS });
          }
          const measured = await alternate(
            () => autocannonLoad(baselineTarget, shape.connections, { durationS: stretchS }),
            () => autocannonLoad(variantTarget, shape.connections, { durationS: stretchS }),
            settings.rounds,
          );
          const result: VariantFigures = {
            variant: variant.name,
            shapeId: shape.id,
            shapeName: shape.name,
            against: variant.against,
            baselineRps: measured.baseline.rps,
            variantRps: measured.variant.rps,
            ratio: measured.baseline.rps > 0 ? measured.variant.rps / measured.baseline.rps : 0,
            variantNon2xx: measured.variant.non2xx + measured.variant.errors + measured.variant.bodyErrors,
          };
          figures.push(result);
          log(
            `  ${variant.name.padEnd(8)} shape ${shape.id} ${shape.name.padEnd(16)} ${result.variantRps.toFixed(0).padStart(6)} rps vs ${variant.against} ` +
              `${result.baselineRps.toFixed(0).padStart(6)} rps = ${result.ratio.toFixed(2)} x` +
              (result.variantNon2xx ? `  ${result.variantNon2xx} failures` : ''),
          );
        }
      } finally {
        await child?.stop();
      }
    }
    return { variants: figures, spansReceived: receiver.spans.length };
  } finally {
    await receiver.close();
  }
}
