// Prometheus metrics of one gateway: its own registry (several gateways may run in one process,
// as in the tests), the operation and upstream series, and the process's default metrics. Each
// feature defines its own metrics, in its folder, on this registry.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CallRecord } from '../upstream/call-types.ts';
import { buildInfo } from './build-info.ts';

/** `upstream_circuit_state` values. */
export const CircuitState = { closed: 0, 'half-open': 1, open: 2 } as const;
export type CircuitState = keyof typeof CircuitState;

// Operation names come from clients: a label per name must not grow without bound.
const MAX_OPERATION_NAMES = 500;
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;
const OUTCOME = /^(ok|[A-Z][A-Z_]{0,63})$/;

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly operations: Counter<'operation' | 'outcome'>;
  readonly operationDuration: Histogram<'operation' | 'outcome'>;
  readonly upstreamDuration: Histogram<'route' | 'status'>;
  readonly upstreamRetries: Counter<'route'>;
  readonly circuitState: Gauge<'upstream'>;
  /** Log lines dropped because stdout's reader did not keep up (the logs never block the gateway). */
  readonly logLinesDropped: Counter;
  readonly #operationNames = new Set<string>();

  constructor() {
    const registers = [this.registry];
    this.operations = new Counter({
      name: 'graphql_operations_total',
      help: 'GraphQL operations answered, by operation name and outcome (ok, or the code of the first error)',
      labelNames: ['operation', 'outcome'],
      registers,
    });
    // Outcome here is ok or error (the counter above has each code): a histogram's series are
    // its buckets times its label values, and 500 names times every code would be too many.
    this.operationDuration = new Histogram({
      name: 'graphql_operation_duration_seconds',
      help: 'Duration of GraphQL operations, from the request read to the answer made, by operation name and outcome (ok or error)',
      labelNames: ['operation', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    const build = buildInfo();
    new Gauge({
      name: 'build_info',
      help: 'The running build: always 1, its labels say which (version, commit, node)',
      labelNames: ['version', 'commit', 'node'],
      registers,
    }).set({ version: build.version, commit: build.commit ?? 'unknown', node: build.node }, 1);
    this.upstreamDuration = new Histogram({
      name: 'upstream_request_duration_seconds',
      help: 'Duration of calls to the v1 upstream, by route template and response status (or how it failed without one)',
      labelNames: ['route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.upstreamRetries = new Counter({
      name: 'upstream_retries_total',
      help: 'Upstream calls retried, by route template',
      labelNames: ['route'],
      registers,
    });
    this.circuitState = new Gauge({
      name: 'upstream_circuit_state',
      help: 'Circuit breaker state of the upstream, by what uses it (graphql, exports): 0 closed, 1 half-open, 2 open',
      labelNames: ['upstream'],
      registers,
    });
    this.logLinesDropped = new Counter({
      name: 'log_lines_dropped_total',
      help: "JSON log lines dropped because stdout's reader stalled and its buffer was full",
      registers,
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /** One answered GraphQL operation; its duration when it was timed (refusals before one are not). */
  countOperation(operationName: string | null | undefined, outcome: string, durationMs?: number): void {
    const operation = this.#operationLabel(operationName);
    this.operations.inc({ operation, outcome: OUTCOME.test(outcome) ? outcome : 'OTHER' });
    if (durationMs !== undefined) this.operationDuration.observe({ operation, outcome: outcome === 'ok' ? 'ok' : 'error' }, durationMs / 1000);
  }

  /** One upstream call, as V1Client's `onCall` reports it. */
  observeCall(call: CallRecord): void {
    const status = call.status === null ? call.outcome.toLowerCase() : String(call.status);
    this.upstreamDuration.observe({ route: call.route, status }, call.durationMs / 1000);
  }

  countRetry(route: string): void {
    this.upstreamRetries.inc({ route });
  }

  setCircuitState(upstream: string, state: CircuitState): void {
    this.circuitState.set({ upstream }, CircuitState[state]);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every metric of this gateway. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  #operationLabel(name: string | null | undefined): string {
    if (!name) return 'anonymous';
    if (!OPERATION_NAME.test(name)) return 'invalid';
    if (this.#operationNames.has(name)) return name;
    if (this.#operationNames.size >= MAX_OPERATION_NAMES) return 'other';
    this.#operationNames.add(name);
    return name;
  }
}
