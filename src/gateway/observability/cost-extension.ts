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

/**
 * An operation, as the cost report knows it: its context. Apollo gives each operation (each of a
 * batch too) its own copy of the request's context, and the executor is handed that same copy.
 */
export type OperationContext = object;

export interface CostReport<TContext extends ObservedContext> {
  /** Pass to the cost limit: called with each operation's estimate. */
  onEstimate(operation: OperationContext, cost: number): void;
  /** Writes `extensions.cost` on each response, refused ones included. */
  plugin: ApolloServerPlugin<TContext>;
  /** The operation's estimate, once made (for its span). */
  estimateOf(operation: OperationContext): number | undefined;
  /** The operation has no estimate after all: execution refused its variables. */
  forget(operation: OperationContext): void;
}

export function costReport<TContext extends ObservedContext>(
  throttleOf?: (request: GraphQLRequest, callCount: number) => Promise<ThrottleExtension | undefined>,
): CostReport<TContext> {
  const estimates = new WeakMap<OperationContext, number>();
  return {
    onEstimate(operation, cost) {
      estimates.set(operation, cost);
    },
    estimateOf: (operation) => estimates.get(operation),
    forget: (operation) => void estimates.delete(operation),
    plugin: {
      async requestDidStart() {
        return {
          async willSendResponse({ request, response, contextValue }) {
            const estimated = estimates.get(contextValue);
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
