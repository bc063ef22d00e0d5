// The request context the executor is handed (Apollo Gateway's shape): the gateway's own copy of
// Apollo Server's function, which the bundle puts in its place, gives what Apollo's gives, with the
// response's HTTP head as a class instance (Apollo's object literal with a getter and a setter kept
// every request's data alive through V8's young-generation collections).
import { HeaderMap } from '@apollo/server';
import { parse, buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { makeGatewayGraphQLRequestContext } from '../../src/gateway/executor/gateway-request-context.ts';
// Apollo's own, from its files (its package exports do not name them).
import { makeGatewayGraphQLRequestContext as apollos } from '../../node_modules/@apollo/server/dist/esm/utils/makeGatewayGraphQLRequestContext.js';

function requestContext(search: string) {
  const schema = buildSchema('type Query { hello: String }');
  const document = parse('query Hello { hello }');
  return {
    request: {
      query: 'query Hello { hello }',
      operationName: 'Hello',
      variables: { a: 1 },
      extensions: { persistedQuery: { version: 1 } },
      http: { method: 'POST', headers: new HeaderMap([['x-service-token', 'k']]), search, body: {} },
    },
    response: { http: { status: undefined as number | undefined, headers: new HeaderMap() } },
    schema,
    contextValue: { requestId: 'r1' },
    queryHash: 'h',
    document,
    source: 'query Hello { hello }',
    operationName: 'Hello',
    operation: document.definitions[0],
    errors: undefined,
    metrics: {},
    overallCachePolicy: { maxAge: 0 },
    requestIsBatched: false,
  };
}

const server = { logger: console, cache: new Map() } as never;
const internals = { includeStacktraceInErrorResponses: false };

/** Every field as read by property access, headers as their entries. */
function read(context: ReturnType<typeof makeGatewayGraphQLRequestContext>) {
  const { request, response, ...rest } = context;
  return {
    ...rest,
    request: { ...request, http: request.http && { ...request.http, headers: [...request.http.headers] } },
    response: { status: response?.http?.status, headers: [...(response?.http?.headers ?? [])] },
  };
}

describe("the executor's request context", () => {
  for (const search of ['', '?a=1', 'a=1']) {
    it(`is what Apollo Server's own function makes (search ${JSON.stringify(search)})`, () => {
      const ours = makeGatewayGraphQLRequestContext(requestContext(search) as never, server, internals);
      const theirs = apollos(requestContext(search) as never, server, internals as never);
      expect(read(ours)).toEqual(read(theirs));
    });
  }

  it("writes the status and the headers through to Apollo's response, and reads them back", () => {
    const apollo = requestContext('');
    const http = makeGatewayGraphQLRequestContext(apollo as never, server, internals).response!.http!;
    http.status = 418;
    http.headers.set('x-one', '1');
    http.headers.append('x-one', '2');
    expect(apollo.response.http.status).toBe(418);
    expect(apollo.response.http.headers.get('x-one')).toBe('1, 2');
    apollo.response.http.status = 200;
    expect(http.status).toBe(200);
  });

  it('has no accessors of its own on the response head: they are on its class', () => {
    const http = makeGatewayGraphQLRequestContext(requestContext('') as never, server, internals).response!.http!;
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(http))) expect(descriptor.get, name).toBeUndefined();
  });
});
