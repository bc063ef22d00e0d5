// What an operation's span learns from Apollo once the operation is answered: its name and type,
// its outcome and error codes (as the request's log line counts them), its cost.
import type { ApolloServerPlugin, BaseContext, GraphQLRequest } from '@apollo/server';
import { errorCodes, responseErrors, type ObservedContext } from '../plugin.ts';
import type { OperationTrace } from './trace-types.ts';

export interface TracedContext extends ObservedContext {
  trace?: OperationTrace;
}

export function tracingPlugin<TContext extends TracedContext & BaseContext>(estimateOf: (request: GraphQLRequest) => number | undefined): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ contextValue, request, response, operation, operationName }) {
          const trace = contextValue.trace;
          if (trace === undefined) return;
          const codes = errorCodes(responseErrors(response)).map((code) => code.split(':')[0]!);
          const estimated = estimateOf(request);
          trace.describe({
            name: (operationName ?? request.operationName)?.slice(0, 100) ?? null,
            type: operation?.operation ?? null,
            outcome: codes[0] ?? 'ok',
            errorCodes: codes,
            estimatedCost: estimated !== undefined && Number.isFinite(estimated) ? estimated : null,
            upstreamCalls: contextValue.observation?.callCount ?? 0,
          });
        },
      };
    },
  };
}
