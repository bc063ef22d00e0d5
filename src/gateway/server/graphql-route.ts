// POST and GET /graphql: who is asking, the body, trusted documents, then Apollo. Each step that
// refuses answers in the contract's shape and stops there; the request's span (with tracing on)
// covers it from its first byte read to its answer written, whatever the answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer } from '@apollo/server';
import type { Logger } from 'pino';
import type { Admission } from '../admission/index.ts';
import type { GatewayConfig } from '../config.ts';
import type { ContextInput, GatewayContext } from '../context.ts';
import { answerThroughApollo } from '../http/apollo-answer.ts';
import { readGraphQLBody } from '../http/graphql-body.ts';
import { requestSearch } from '../http/plain.ts';
import type { refusal } from '../http/refusal.ts';
import { contextIdentity, requestIdentity } from '../identity/http.ts';
import type { Identity } from '../identity/index.ts';
import type { GatewayTracing, OperationTrace } from '../observability/tracing/trace-types.ts';
import { applyToRequest } from '../trusted-documents/index.ts';

export interface GraphQLRouteParts {
  options: Pick<GatewayConfig, 'landingPage' | 'bodyLimitBytes' | 'limits'>;
  apollo: ApolloServer<GatewayContext>;
  createContext: (input: ContextInput) => GatewayContext;
  identity: Identity;
  admit: Admission;
  refuse: ReturnType<typeof refusal>;
  originOf: (req: IncomingMessage) => string;
  tracing: GatewayTracing | undefined;
  logger: Logger;
}

export function graphqlRoute(parts: GraphQLRouteParts): (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void> {
  const { options, apollo, createContext, identity, admit, refuse, originOf, tracing, logger } = parts;

  async function answerGraphQL(req: IncomingMessage, res: ServerResponse, requestId: string, trace: OperationTrace | undefined): Promise<void> {
    const who = await requestIdentity(identity, req, options.landingPage, trace); // before any other work
    if (!who.ok) return refuse(res, requestId, trace, who);
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readGraphQLBody(req, options);
      if (read.kind === 'gone') return;
      if (read.kind === 'refused') return refuse(res, requestId, trace, read);
      body = read.body;
    }
    let search = requestSearch(req.url ?? '/');
    if (admit.trusted) {
      const applied = await applyToRequest(admit.document, body, search);
      if (!applied.ok) return refuse(res, requestId, trace, { status: applied.status, answer: { errors: applied.errors } });
      search = applied.search;
    }
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    // A client that goes away cancels the upstream calls made on its behalf.
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    await answerThroughApollo(apollo, { method: (req.method ?? 'GET').toUpperCase(), headers, search, body }, res, () =>
      createContext({ requestId, ...contextIdentity(identity, logger, requestId, who.caller), signal: abort.signal, origin: originOf(req), ...(trace ? { trace } : {}) }),
    );
  }

  return async function handleGraphQL(req, res, requestId) {
    if (tracing === undefined) return answerGraphQL(req, res, requestId, undefined);
    const trace = tracing.operation(req.headers);
    try {
      await answerGraphQL(req, res, requestId, trace);
    } finally {
      trace.end(res.statusCode);
    }
  };
}
