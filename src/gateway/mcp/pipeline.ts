// A tool call through the same pipeline as a POST to /graphql: trusted documents, then Apollo's
// executeHTTPGraphQLRequest with a context made by the same factory from the same credentials.
// So limits, the cost estimate and `extensions.cost`, throttling, the response cache, the log line
// under the operation's name, the metrics and the request's span all apply as they do there,
// with no rule of their own for assistants.
import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import type { ApplyTrusted } from '../trusted-documents/http.ts';
import type { GatewayTracing, OperationTrace } from '../observability/tracing/trace-types.ts';
import type { CallOrigin, GraphQLCall } from './endpoint.ts';
import type { GraphQLAnswer } from './tool-result.ts';

export interface PipelineParts<TContext extends BaseContext, TCaller> {
  apollo: ApolloServer<TContext>;
  /** The context of one operation, as /graphql makes it for the same request. */
  createContext: (origin: CallOrigin<TCaller>, trace: OperationTrace | undefined) => TContext;
  trusted?: ApplyTrusted;
  tracing?: GatewayTracing;
}

export function graphqlPipeline<TContext extends BaseContext, TCaller>(parts: PipelineParts<TContext, TCaller>) {
  return async function execute(call: GraphQLCall, origin: CallOrigin<TCaller>): Promise<GraphQLAnswer> {
    // Each call is an operation of its own, with its own span (continuing the request's traceparent).
    const trace = parts.tracing?.operation(origin.req.headers);
    let status = 200;
    try {
      const body: Record<string, unknown> = { query: call.query, operationName: call.operationName, variables: call.variables };
      if (parts.trusted) {
        const checked = await parts.trusted(body);
        if (!checked.ok) {
          status = checked.status;
          return { errors: checked.errors.map((error) => ({ message: error.message, extensions: { ...error.extensions } })) };
        }
      }
      const headers = new HeaderMap([
        ['content-type', 'application/json'],
        ['accept', 'application/graphql-response+json, application/json'],
      ]);
      const response = await parts.apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: 'POST', headers, search: '', body },
        context: async () => parts.createContext(origin, trace),
      });
      status = response.status ?? 200;
      let text: string;
      if (response.body.kind === 'complete') text = response.body.string;
      else {
        text = '';
        for await (const chunk of response.body.asyncIterator) text += chunk;
      }
      return JSON.parse(text) as GraphQLAnswer;
    } finally {
      trace?.end(status);
    }
  };
}
