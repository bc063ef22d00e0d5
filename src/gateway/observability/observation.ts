// One GraphQL request as the operator sees it: the upstream calls it made (each attempt), counted
// for the log line, the metrics and `extensions.cost`.
import type { CallRecord } from '../upstream/call-types.ts';
import type { GatewayMetrics } from './metrics.ts';

/**
 * Upstream calls listed in one log line (each attempt of a retried GET is one); a request that
 * made more says how many in `upstreamCalls`.
 */
const MAX_LOGGED_CALLS = 50;

/**
 * One GraphQL request as observed: created with the request's context (before Apollo starts on
 * it, so the duration covers context creation), fed by the upstream client's `onCall`. The operations of a
 * batched HTTP request share it: each of their lines lists the batch's calls so far.
 */
export class RequestObservation {
  readonly startedAt = performance.now();
  readonly calls: CallRecord[] = [];
  #count = 0;

  constructor(private readonly metrics?: GatewayMetrics) {}

  /** Pass as the upstream client's `onCall`. */
  readonly onCall = (call: CallRecord): void => {
    this.#count += 1;
    if (this.calls.length < MAX_LOGGED_CALLS) this.calls.push(call);
    this.metrics?.observeCall(call);
  };

  get callCount(): number {
    return this.#count;
  }
}
