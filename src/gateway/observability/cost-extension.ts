// `extensions.cost` of every GraphQL response (graphql.md, "Cost and throttling"): the operation's
// estimated cost, as the cost limit computed it, and the upstream calls the request made, as the
// request's log line counts them (RequestObservation): one per HTTP request sent upstream, each
// attempt of a retried GET included, so that a client sees what its operation really cost.
import type { ApolloServerPlugin, GraphQLRequest } from '@apollo/server';
import type { ObservedContext } from './plugin.ts';

/** The caller's bucket, when throttling is on (Shopify's `throttleStatus`). */
export interface ThrottleExtension {
  limit: number;
  remaining: number;
  restorePerSecond: number;
}

export interface CostExtension {
  /** The estimated cost; null when the operation was never estimated (a document that did not
   *  parse or validate, variables refused) or was too large to estimate. */
  estimated: number | null;
  upstreamCalls: number;
  throttle?: ThrottleExtension;
}

export interface CostReport<TContext extends ObservedContext> {
  /** Pass to the cost limit: called with each operation's estimate. */
  onEstimate(request: GraphQLRequest, cost: number): void;
  /** Writes `extensions.cost` on each response, refused ones included. */
  plugin: ApolloServerPlugin<TContext>;
  /** The operation's estimate, once made (for its span). */
  estimateOf(request: GraphQLRequest): number | undefined;
}

export function costReport<TContext extends ObservedContext>(
  throttleOf?: (request: GraphQLRequest, callCount: number) => Promise<ThrottleExtension | undefined>,
): CostReport<TContext> {
  // Keyed by Apollo's request object, one per operation (the operations of a batch each have
  // their own) and the same from didResolveOperation to willSendResponse.
  const estimates = new WeakMap<GraphQLRequest, number>();
  return {
    onEstimate(request, cost) {
      estimates.set(request, cost);
    },
    estimateOf: (request) => estimates.get(request),
    plugin: {
      async requestDidStart() {
        return {
          async willSendResponse({ request, response, contextValue }) {
            const estimated = estimates.get(request);
            const cost: CostExtension = {
              // Infinity (too large to estimate) has no JSON.
              estimated: estimated !== undefined && Number.isFinite(estimated) ? estimated : null,
              // The operations of a batched HTTP request share one observation: each says the
              // calls of the batch so far.
              upstreamCalls: contextValue.observation?.callCount ?? 0,
            };
            const throttle = await throttleOf?.(request, cost.upstreamCalls);
            if (throttle) cost.throttle = throttle;
            const result = response.body.kind === 'single' ? response.body.singleResult : response.body.initialResult;
            result.extensions = { ...result.extensions, cost };
          },
        };
      },
    },
  };
}
