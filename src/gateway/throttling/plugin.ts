// Throttling by cost (graphql.md, "Cost and throttling"): before an operation runs, its estimated
// upstream calls are reserved from its key's bucket, or it is refused with HTTP 429, RATE_LIMITED,
// `retryAfter` and a `Retry-After` header, before any upstream call. Once answered, the bucket is
// settled to the calls the operation actually made, and `extensions.cost.throttle` shows it.
// Keys are known here only by a hash: never the key itself as a bucket name, log field or label.
import { HeaderMap, type ApolloServerPlugin, type BaseContext, type GraphQLRequest } from '@apollo/server';
import { ErrorCode, GatewayError } from '../errors.ts';
import type { RequestObservation } from '../observability/observation.ts';
import type { BucketSettings, BucketStore } from './buckets.ts';
import { callEstimates } from './call-estimate.ts';
import { keyHash } from '../key-hash.ts';

export interface ThrottleStatus {
  limit: number;
  remaining: number;
  restorePerSecond: number;
}

interface ThrottledContext extends BaseContext {
  apiKey: string | null;
  /** A signed-in user's bucket name (identity/): one bucket per user, not per key it acts with. */
  caller?: { bucket: string };
  observation?: RequestObservation;
}

/**
 * Upstream calls taken from a key's bucket outside a GraphQL operation over HTTP (a subscription's
 * admission, a poll, a download): refused like an operation when the bucket cannot pay, with
 * when to retry. `settle` squares the bucket with the calls actually made.
 */
export type Charge =
  | { ok: true; remaining: number; settle(spent: number): Promise<number> }
  | { ok: false; remaining: number; retryAfterS: number };

export interface Throttle<TContext extends ThrottledContext> {
  plugin: ApolloServerPlugin<TContext>;
  readonly settings: BucketSettings;
  /** Takes `calls` from the bucket of `apiKey` if that many are left (all or nothing). */
  charge(apiKey: string, calls: number): Promise<Charge>;
  /**
   * Once the operation is answered: settles its bucket to the calls it made (`callCount`, the
   * request's count so far) and returns the bucket for `extensions.cost.throttle`; undefined when
   * it was not throttled. Called by the cost report, so the settling is done when it is shown
   * (Apollo runs one hook of every plugin at once).
   */
  finish(request: GraphQLRequest, callCount: number): Promise<ThrottleStatus | undefined>;
}

interface Admitted {
  bucket: string;
  reserved: number;
  callsBefore: number;
}

export function throttle<TContext extends ThrottledContext>(settings: BucketSettings, store: BucketStore): Throttle<TContext> {
  // Keyed by Apollo's request object: one per operation, batched ones included.
  const refused = new WeakMap<GraphQLRequest, ThrottleStatus>();
  const admitted = new WeakMap<GraphQLRequest, Admitted>();
  const status = (remaining: number): ThrottleStatus => ({ limit: settings.limit, remaining, restorePerSecond: settings.restorePerSecond });
  let estimate: ReturnType<typeof callEstimates> | undefined;
  return {
    settings,
    async charge(apiKey, calls) {
      const bucket = keyHash(apiKey);
      const reserved = Math.min(settings.limit, calls);
      const reservation = await store.reserve(bucket, reserved);
      if (!reservation.ok) return reservation;
      return { ok: true, remaining: reservation.remaining, settle: (spent) => store.settle(bucket, reserved, spent) };
    },
    async finish(request, callCount) {
      const entry = admitted.get(request);
      if (!entry) return refused.get(request);
      admitted.delete(request);
      // The operations of a batch share one call count: this one spent what it added.
      return status(await store.settle(entry.bucket, entry.reserved, callCount - entry.callsBefore));
    },
    plugin: {
      async requestDidStart({ contextValue }) {
        // No key: the operation fails UNAUTHENTICATED before any call, with nothing to charge.
        if (!contextValue.apiKey) return;
        const bucket = contextValue.caller?.bucket ?? keyHash(contextValue.apiKey);
        return {
          async didResolveOperation({ schema, document, operation, request }) {
            if (!operation) return;
            estimate ??= callEstimates(schema);
            const estimated = Math.min(settings.limit, estimate(document, operation, request.variables));
            const reservation = await store.reserve(bucket, estimated);
            if (!reservation.ok) {
              refused.set(request, status(reservation.remaining));
              throw new GatewayError(
                `This operation needs an estimated ${estimated} upstream calls and this key has ${reservation.remaining} left ` +
                  `(RATE_LIMIT_CALLS ${settings.limit}, ${settings.restorePerSecond} restored a second): retry in ${reservation.retryAfterS} s.`,
                {
                  code: ErrorCode.RATE_LIMITED,
                  retryAfter: reservation.retryAfterS,
                  http: { status: 429, headers: new HeaderMap([['retry-after', String(reservation.retryAfterS)]]) },
                },
              );
            }
            admitted.set(request, { bucket, reserved: estimated, callsBefore: contextValue.observation?.callCount ?? 0 });
          },
        };
      },
    },
  };
}
