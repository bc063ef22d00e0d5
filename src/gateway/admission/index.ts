// One admission path for every way into the gateway: GraphQL over HTTP, subscriptions over
// WebSocket and their pollers, export downloads (and any surface added later). Each asks the same
// two questions before it calls upstream: is this document one the gateway runs (trusted
// documents), and can the caller's bucket pay for the calls (throttling)? A surface that skips
// either would let a client around the limit the others obey. The caller is named by its upstream
// key here; an identity that maps to a key (and a bucket of its own) plugs in at `charge`.
import { ErrorCode, GatewayError } from '../errors.ts';
import type { Charge } from '../throttling/plugin.ts';
import type { ApplyTrusted } from '../trusted-documents/http.ts';
import type { Checked, OperationFields } from '../trusted-documents/requests.ts';

export interface Admission {
  /** The trusted documents' check as configured (undefined: off), for a surface that applies it whole. */
  readonly trusted: ApplyTrusted | undefined;
  /**
   * Takes `calls` upstream calls from the bucket of `apiKey`, or refuses (`ok: false`, with when to
   * retry). Always granted while throttling is off.
   */
  charge(apiKey: string, calls: number): Promise<Charge>;
  /**
   * Trusted documents: fills in the text of an operation that names a trusted document, refuses an
   * untrusted one under `enforce`. Mutates `operation`. Always passes while they are off.
   */
  document(operation: OperationFields): Promise<Checked>;
}

const GRANTED: Charge = { ok: true, remaining: Number.POSITIVE_INFINITY, settle: async () => Number.POSITIVE_INFINITY };

export function admission(parts: { throttle?: { charge(apiKey: string, calls: number): Promise<Charge> }; trusted?: ApplyTrusted | undefined }): Admission {
  const { throttle, trusted } = parts;
  return {
    trusted,
    charge: throttle ? (apiKey, calls) => throttle.charge(apiKey, calls) : async () => GRANTED,
    document: trusted ?? (async () => ({ ok: true })),
  };
}

/** The error of a refused charge, as an operation refused by throttling says it. */
export function rateLimited(refused: Extract<Charge, { ok: false }>, what: string): GatewayError {
  return new GatewayError(`${what} needs upstream calls this key does not have left (${refused.remaining}): retry in ${refused.retryAfterS} s.`, {
    code: ErrorCode.RATE_LIMITED,
    retryAfter: refused.retryAfterS,
  });
}
