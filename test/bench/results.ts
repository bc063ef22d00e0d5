// What a benchmark run finds, as written to results.json, and the targets it is judged by.
import type { LoadResult } from './load.ts';
import type { MemorySample } from './proc.ts';
import type { ReferenceFigures } from './reference-figures.ts';
import type { ExportFigures } from './export.ts';
import type { TailFigures } from './tail.ts';
import type { SoakFigures } from './soak.ts';
import type { ProductionFigures } from './production.ts';
import type { ReplicaFigures } from './replicas.ts';
import type { BenchSettings } from './settings.ts';
import type { StartupFigures } from './startup.ts';

export const TARGETS = ['gateway', 'passthrough', 'direct'] as const;
export type TargetName = (typeof TARGETS)[number];

export const TARGET_LABELS: Record<TargetName, string> = {
  gateway: 'gateway',
  passthrough: 'pass-through',
  direct: 'direct v1',
};

export interface TargetFigures {
  load: LoadResult;
  /** v1 requests received during the measurement, per response of the target. */
  upstreamCallsPerRequest: number;
  /** CPU time of the target's own process per response (gateway and pass-through only). */
  cpuMsPerRequest: number | null;
  /** CPU time of the v1 service per response of the target. */
  v1CpuMsPerRequest: number;
  /** How the target was warmed up before it was measured; null without a warm-up. */
  warmUp: WarmUp | null;
}

/** A target's warm-up: one-second slices of load until its pace was steady. */
export interface WarmUp {
  seconds: number;
  /** Requests per second of each slice, in order. */
  sliceRps: number[];
  /** Whether the pace settled (false: the warm-up stopped at BENCH_WARMUP_MAX). */
  steady: boolean;
}

export interface Verification {
  /** The pass-through's JSON equals the gateway's `data`. */
  sameData: boolean;
  /** The first difference, when not. */
  dataDifference?: string;
  /** `METHOD url` of each v1 request made for one request of the target, as v1 received them. */
  calls: Record<TargetName, string[]>;
  /** The gateway made the same calls as the pass-through (same requests, any order). */
  sameCalls: boolean;
  /** Calls the gateway made more (or fewer) than the pass-through, and calls it repeated. */
  extraCalls: string[];
  missingCalls: string[];
  duplicateCalls: string[];
}

export interface ShapeResult {
  id: number;
  name: string;
  title: string;
  connections: number;
  verification: Verification;
  targets: Record<TargetName, TargetFigures>;
  ratios: {
    rpsGatewayToPassthrough: number;
    rpsGatewayToDirect: number;
    p50GatewayToPassthrough: number;
    p50GatewayToDirect: number;
    p99GatewayToPassthrough: number;
    p99GatewayToDirect: number;
  };
  /** The gateway's RSS when its measurement of this shape ended. */
  gatewayRssAfterMB: number;
}

export interface SoakRound {
  round: number;
  rps: number;
  peakMB: number;
  /** Mean of the RSS samples of the round: what the flatness is judged on (peaks follow GC timing). */
  meanMB: number;
  endMB: number;
  /** About the mean of the shapes' calls (requests cut off at the round's end count too). */
  upstreamCallsPerRequest: number;
  non2xx: number;
  errors: number;
}

export interface TargetCheck {
  name: string;
  met: boolean;
  detail: string;
}

export interface BenchResults {
  startedAt: string;
  finishedAt: string;
  /** Load averages (1 min) when the run started and ended: other work on the machine makes figures noisy. */
  machine: { cpus: number; node: string; platform: string; loadAtStart: number; loadAtEnd: number };
  settings: Omit<BenchSettings, 'key'>;
  database: { path: string; reused: boolean; startSeconds: number };
  shapes: ShapeResult[];
  /** Shapes a target could not answer once: not measured. */
  skipped: { id: number; name: string; reason: string }[];
  memory: {
    gatewayStartMB: number;
    gatewayEndMB: number;
    /** Peak over the whole run, the tail's 1,000 subscribers and the export phases included. */
    gatewayPeakMB: number;
    /** Peak under the GraphQL load: the shapes one by one, then all of them mixed (the soak). */
    gatewayLoadPeakMB: number;
    soak: { rounds: SoakRound[]; growthMB: number; flat: boolean };
    samples: MemorySample[];
  };
  reference: ReferenceFigures | { error: string } | null;
  tail: TailFigures | { error: string } | null;
  /** Every surface at once, adversarial clients among them, for BENCH_SOAK_S seconds. */
  soak: SoakFigures | { error: string } | null;
  export: ExportFigures | { error: string } | null;
  production: ProductionFigures | { error: string } | null;
  replicas: ReplicaFigures | { error: string } | null;
  startup: StartupFigures | { error: string } | null;
  checks: TargetCheck[];
}
