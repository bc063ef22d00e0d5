// What Apollo Server hands the gateway's executor (its `gateway` option) for each operation: the
// request context in Apollo Gateway's older shape. This is Apollo Server 5.5's own
// `makeGatewayGraphQLRequestContext` with one change, and the bundle (scripts/bundle.mjs) puts it
// in the place of Apollo's.
//
// The change: Apollo builds `response.http` as an object literal with a getter and a setter for
// `status`, two new closures per request over the whole request context. V8 cannot share one
// hidden class between objects whose accessors are different functions, so each request's object
// gets a hidden class of its own, made in the old generation; from there it holds the closures,
// and through them the request context (the resolvers' context, their loaders, the upstream's
// parsed answers), for every young-generation collection until the next full one. Every request's
// data was copied and promoted: most of the gateway's collection time, and a good part of its
// memory under load. Here `response.http` is an instance of a class: one hidden class, accessors
// on its prototype, and the request's data dies young.
import type { BaseContext, GraphQLRequestContextExecutionDidStart, HeaderMap } from '@apollo/server';
import type { GatewayGraphQLRequest, GatewayGraphQLRequestContext, GatewaySchemaHash } from '@apollo/server-gateway-interface';

/** The W3C-style headers Gateway's request and response carry. */
type FetcherHeaders = NonNullable<GatewayGraphQLRequest['http']>['headers'];

/** What this needs of the ApolloServer and of its internals. */
interface ServerParts {
  logger: GatewayGraphQLRequestContext['logger'];
  cache: GatewayGraphQLRequestContext['cache'];
}
interface InternalParts {
  includeStacktraceInErrorResponses: boolean;
}

/** The same arguments and result as Apollo's: see the file's comment for the one difference. */
export function makeGatewayGraphQLRequestContext<TContext extends BaseContext>(
  newRequestContext: GraphQLRequestContextExecutionDidStart<TContext>,
  server: ServerParts,
  internals: InternalParts,
): GatewayGraphQLRequestContext {
  const request: GatewayGraphQLRequest = {};
  if ('query' in newRequestContext.request) request.query = newRequestContext.request.query;
  if ('operationName' in newRequestContext.request) request.operationName = newRequestContext.request.operationName;
  if ('variables' in newRequestContext.request) request.variables = newRequestContext.request.variables;
  if ('extensions' in newRequestContext.request) request.extensions = newRequestContext.request.extensions;
  if (newRequestContext.request.http) {
    const newHttp = newRequestContext.request.http;
    const needQuestion = newHttp.search !== '' && !newHttp.search.startsWith('?');
    request.http = {
      method: newHttp.method,
      // Apollo Server no longer tracks whole URLs (only a GET's search): Gateway is given one.
      url: `https://unknown-url.invalid/${needQuestion ? '?' : ''}${newHttp.search}`,
      headers: new FetcherHeadersForHeaderMap(newHttp.headers),
    };
  }
  return {
    request,
    // No `body`: it is not set yet.
    response: { http: new ResponseHttp(newRequestContext.response.http) },
    logger: server.logger,
    schema: newRequestContext.schema,
    schemaHash: 'schemaHash no longer exists since Apollo Server 4' as GatewaySchemaHash,
    context: newRequestContext.contextValue,
    cache: server.cache,
    queryHash: newRequestContext.queryHash,
    document: newRequestContext.document,
    source: newRequestContext.source,
    operationName: newRequestContext.operationName,
    operation: newRequestContext.operation,
    errors: newRequestContext.errors,
    metrics: newRequestContext.metrics,
    debug: internals.includeStacktraceInErrorResponses,
    overallCachePolicy: newRequestContext.overallCachePolicy,
    requestIsBatched: newRequestContext.requestIsBatched,
  };
}

/** The response's HTTP head, written through to Apollo's own (status and headers alike). */
class ResponseHttp {
  readonly headers: FetcherHeaders;
  readonly #http: { status?: number | undefined; headers: HeaderMap };

  constructor(http: { status?: number | undefined; headers: HeaderMap }) {
    this.#http = http;
    this.headers = new FetcherHeadersForHeaderMap(http.headers);
  }

  get status(): number | undefined {
    return this.#http.status;
  }

  set status(status: number | undefined) {
    this.#http.status = status;
  }
}

/** W3C-style headers over Apollo's HeaderMap: a write is seen at once by Apollo and its plugins. */
class FetcherHeadersForHeaderMap implements FetcherHeaders {
  readonly #map: HeaderMap;

  constructor(map: HeaderMap) {
    this.#map = map;
  }
  append(name: string, value: string): void {
    this.#map.set(name, this.#map.has(name) ? `${this.#map.get(name)}, ${value}` : value);
  }
  delete(name: string): void {
    this.#map.delete(name);
  }
  get(name: string): string | null {
    return this.#map.get(name) ?? null;
  }
  has(name: string): boolean {
    return this.#map.has(name);
  }
  set(name: string, value: string): void {
    this.#map.set(name, value);
  }
  entries(): Iterator<[string, string]> {
    return this.#map.entries();
  }
  keys(): Iterator<string> {
    return this.#map.keys();
  }
  values(): Iterator<string> {
    return this.#map.values();
  }
  [Symbol.iterator](): Iterator<[string, string]> {
    return this.#map.entries();
  }
}
