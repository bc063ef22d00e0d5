// What the gateway asks of tracing, so that nothing outside tracer.ts imports OpenTelemetry: with
// tracing off the SDK is never loaded, and these hooks are absent (no cost).
import type { UpstreamTracer } from '../../upstream/call-types.ts';

/** What an operation's span learns once the operation is answered. */
export interface OperationOutcome {
  name: string | null;
  type: string | null;
  /** `ok`, or the first error's code. */
  outcome: string;
  errorCodes: string[];
  estimatedCost: number | null;
  upstreamCalls: number;
}

/** The span of one GraphQL request over HTTP, parent of its upstream attempts' spans. */
export interface OperationTrace extends UpstreamTracer {
  describe(outcome: OperationOutcome): void;
  /** The signed-in user the request is for: its `sub` only. */
  identify(sub: string): void;
  end(httpStatus: number): void;
}

export interface GatewayTracing {
  /** Starts a request's span, continuing the W3C `traceparent` of its headers when there is one. */
  operation(headers: Readonly<Record<string, string | string[] | undefined>>): OperationTrace;
  /** Sends what is left and stops. */
  shutdown(): Promise<void>;
}
