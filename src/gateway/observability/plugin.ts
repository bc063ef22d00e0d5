// What the gateway tells its operator about each GraphQL request: one JSON log line (request id,
// operation, outcome and error codes, duration, the upstream calls it made) and the metrics.
// The API key is never among the fields read here.
import type { ApolloServerPlugin, BaseContext, GraphQLRequestContextWillSendResponse } from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';
import type { Logger } from 'pino';
import type { RequestObservation } from './observation.ts';
import type { GatewayMetrics } from './metrics.ts';
import type { OperationTrace } from './tracing/trace-types.ts';

/** What the plugin needs of the context: its request id and observation. */
export interface ObservedContext extends BaseContext {
  requestId: string;
  observation?: RequestObservation;
  /** With tracing on: the request's span. */
  trace?: OperationTrace;
}

export interface ObservabilityOptions {
  logger: Logger;
  metrics: GatewayMetrics;
  /** The operation's estimated cost, for its span (tracing on). */
  estimateOf?: (operation: BaseContext) => number | undefined;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function responseErrors(response: GraphQLRequestContextWillSendResponse<BaseContext>['response']): readonly GraphQLFormattedError[] {
  const body = response.body;
  return (body.kind === 'single' ? body.singleResult.errors : body.initialResult.errors) ?? [];
}

/** The distinct `extensions.code`s of the answer, in order; a limit's `reason` is kept beside its code. */
function errorCodes(errors: readonly GraphQLFormattedError[]): string[] {
  const codes = new Set<string>();
  for (const error of errors) {
    const code = typeof error.extensions?.code === 'string' ? error.extensions.code : 'INTERNAL_SERVER_ERROR';
    const reason = error.extensions?.reason;
    codes.add(typeof reason === 'string' ? `${code}:${reason}` : code);
  }
  return [...codes];
}

// Codes that say the gateway or its upstream failed, not the client: worth a warning.
const OPERATOR_CODES = /^(INTERNAL_SERVER_ERROR|UPSTREAM_(UNAVAILABLE|TIMEOUT|BAD_RESPONSE))\b/;

export function observabilityPlugin<TContext extends ObservedContext>({ logger, metrics, estimateOf }: ObservabilityOptions): ApolloServerPlugin<TContext> {
  // The request line below is built from the names written here and nothing else, none of them
  // a key field at any depth: the logger's redaction could never change a byte of it, yet its
  // wildcard paths walk every line it writes, a cost a small request notices. So this one line
  // skips them; everything else logged (errors, careless objects) is still redacted.
  const requestLines = logger.child({}, { redact: [] });
  return {
    async requestDidStart({ contextValue }) {
      const startedAt = contextValue.observation?.startedAt ?? performance.now();
      return {
        async willSendResponse({ contextValue: context, request, response, operation, operationName }) {
          // A name the client sent for an operation that never resolved may be anything: clipped.
          const name = (operationName ?? request.operationName)?.slice(0, 100) ?? null;
          const codes = errorCodes(responseErrors(response));
          const observation = context.observation;
          const outcome = codes[0]?.split(':')[0] ?? 'ok';
          const durationMs = performance.now() - startedAt;
          metrics.countOperation(name, outcome, durationMs);
          // The request's span (tracing on) learns what its log line says, from the same figures.
          if (context.trace) {
            const estimated = estimateOf?.(context);
            context.trace.describe({
              name,
              type: operation?.operation ?? null,
              outcome,
              errorCodes: codes.map((code) => code.split(':')[0]!),
              estimatedCost: estimated !== undefined && Number.isFinite(estimated) ? estimated : null,
              upstreamCalls: observation?.callCount ?? 0,
            });
          }
          const line = {
            requestId: context.requestId,
            operation: name,
            operationType: operation?.operation ?? null,
            outcome: codes.length === 0 ? 'ok' : 'error',
            errors: codes,
            status: response.http.status ?? 200,
            durationMs: round(durationMs),
            upstreamCalls: observation?.callCount ?? 0,
            upstream: (observation?.calls ?? []).map((call) => ({
              route: call.route,
              status: call.status,
              durationMs: round(call.durationMs),
              outcome: call.outcome,
              attempt: call.attempt,
              ...(call.cause === undefined ? {} : { cause: call.cause }),
            })),
          };
          if (codes.some((code) => OPERATOR_CODES.test(code))) requestLines.warn(line, 'graphql request');
          else requestLines.info(line, 'graphql request');
        },
      };
    },

    // Refused before an operation could be read (batching off, CSRF prevention, a body that is
    // not a GraphQL request): Apollo creates no request context, so there is no request id here;
    // the response still carries it in `x-request-id`.
    async invalidRequestWasReceived({ error }) {
      metrics.countOperation(null, 'BAD_REQUEST');
      logger.info({ operation: null, outcome: 'error', errors: ['BAD_REQUEST'], reason: error.message }, 'graphql request refused');
    },
  };
}
