// The gateway's HTTP server: Apollo Server 5 on a plain node:http server that also answers the
// operator endpoints. Everything GraphQL goes through Apollo's executeHTTPGraphQLRequest; this
// file only turns node's request into Apollo's and back, and owns the server's lifecycle.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ApolloServer, HeaderMap } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config.ts';
import { contextFactory, type GatewayContext } from './context.ts';
import { answerThroughApollo } from './http/apollo-answer.ts';
import { deviceRoutes, READINESS_PROBE } from './domains/protection-devices/routes.ts';
import { trafficWindowPages } from './domains/protection-devices/traffic-export.ts';
import { upstreamTakesKey } from './domains/protection-devices/operations.ts';
import { ROUTE_CACHE_RULES } from './domains/routes.ts';
import { apolloCaches } from './executor/apollo-caches.ts';
import { apolloFeaturesOff } from './executor/apollo-features-off.ts';
import { jitGateway } from './executor/executor.ts';
import { operationResolutionPlugin } from './executor/operation-resolution.ts';
import { createFormatError, withoutSuggestions } from './format-error.ts';
import { corsMiddleware } from './http/cors.ts';
import { readGraphQLBody } from './http/graphql-body.ts';
import { answerClientErrorsInJson } from './http/client-errors.ts';
import { refusal } from './http/refusal.ts';
import { disclosureOptions } from './http/disclosure.ts';
import { noStorePlugin } from './http/no-store.ts';
import { ShutdownGate } from './http/shutdown-gate.ts';
import { limitOptions } from './limits/index.ts';
import { throttleFor } from './throttling/index.ts';
import { costReport } from './observability/cost-extension.ts';
import { createLogger } from './observability/logger.ts';
import { GatewayMetrics } from './observability/metrics.ts';
import { observabilityPlugin } from './observability/plugin.ts';
import { liveTail } from './live-tail/index.ts';
import { startSubscriptionServer } from './subscriptions/websocket.ts';
import { EXPORTS_PATH, exportDownloads, exportLinksFor, type ExportLink } from './export-links/index.ts';
import { hostForUrl, originResolver } from './http/origin.ts';
import { landingRoutes } from './landing/routes.ts';
import { operatorEndpoints } from './http/operator-endpoints.ts';
import { requestSearch, sendJson } from './http/plain.ts';
import { responseCacheFor } from './response-cache/index.ts';
import type { OperationTrace } from './observability/tracing/trace-types.ts';
import { applyToRequest, trustedDocumentsFor } from './trusted-documents/index.ts';
import { admission } from './admission/index.ts';
import { sharedState } from './shared-state/index.ts';
import { MCP_PATH } from './mcp/settings.ts';
import { schemaFor } from './subgraph/index.ts';
import { Transport } from './upstream/transport.ts';
import { WebProtectionReadSupport } from './domains/web-protection/read-support.ts';
import { identityFor } from './identity/index.ts';
import { contextIdentity, requestIdentity } from './identity/http.ts';
import { listen } from './http/listen.ts';

export interface GatewayOptions extends GatewayConfig {
  upstreamUrl: string;
  /** Embedded demo only: the key Sandbox's shared headers start with. */
  demoKey?: string;
  /** In front of the embedded reference service (no UPSTREAM_URL): local dev servers pass CORS. */
  embeddedDemo?: boolean;
  logger?: Logger;
}

export interface Gateway {
  url: string;
  port: number;
  httpServer: Server;
  /** With METRICS_PORT: the port /metrics listens on. */
  metricsPort?: number | undefined;
  logger: Logger;
  /** Settles once the start's one look at the upstream is over (its call made, its word logged). */
  upstreamChecked: Promise<void>;
  close(): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  /** The port listened on, once listening. */
  let port = options.port;
  const metrics = new GatewayMetrics();
  const logger = options.logger ?? createLogger({ level: options.logLevel, onDrop: (lines) => metrics.logLinesDropped.inc(lines) });
  const identity = identityFor(options.identity, logger, metrics.registry); // AUTH_MODE; a bad credentials file stops the start
  // Throttling by cost, when RATE_LIMIT_CALLS is set: each key's bucket, this gateway's own.
  // With REDIS_URL, what replicas share; otherwise each store is this process's memory.
  const shared = await sharedState(options.redisUrl, logger, metrics.registry);
  const throttled = throttleFor<GatewayContext>(options.rateLimit, shared.redis);
  // One admission path for HTTP, WebSocket, pollers and downloads: trusted documents, each key's bucket.
  const admit = admission({ ...(throttled ? { throttle: throttled } : {}), trusted: trustedDocumentsFor(options.trustedDocuments, logger, shared.redis) });
  const cost = costReport<GatewayContext>(throttled?.finish);
  const limits = limitOptions<GatewayContext>(options.limits, cost.onEstimate);
  // The upstream's connections, breaker and retry budget: this gateway's own, made once here.
  const transport = new Transport({
    baseUrl: options.upstreamUrl,
    deadlineMs: options.upstreamTimeoutMs,
    retries: options.upstreamRetries,
    circuitBreaker: { failures: options.upstreamCircuitFailures, cooldownMs: options.upstreamCircuitCooldownMs },
    maxBodyBytes: options.upstreamMaxBodyBytes,
    onCircuitStateChange: (state) => metrics.setCircuitState('graphql', state),
    readinessProbe: READINESS_PROBE,
  });
  metrics.setCircuitState('graphql', transport.breaker.state);
  const onRetry = (retry: { route: string }) => metrics.countRetry(retry.route);
  // The traffic tails' pollers call upstream like requests do (deadlines, breaker, retry budget,
  // metrics), each call with the key of a subscriber that currently may read the device; never cached.
  const tail = liveTail({
    settings: options.tail,
    client: (apiKey, signal, beforeCall) => transport.client({ apiKey, signal, onCall: (call) => metrics.observeCall(call), onRetry, ...(beforeCall ? { beforeCall } : {}) }),
    registry: metrics.registry,
    redis: shared.redis,
    charge: admit.charge,
  });
  const exportLinks = exportLinksFor(options.exportLinkTtlMs, shared.redis, options.exports.linksPerKey);
  // The response cache, when RESPONSE_CACHE_TTL_S or STALE_IF_ERROR_S is set: this gateway's own.
  // With REDIS_URL, shared by the replicas through the shared connection.
  const responseCache = responseCacheFor<GatewayContext>(options.responseCache, {
    registry: metrics.registry,
    rules: ROUTE_CACHE_RULES,
    ...(shared.redis ? { redis: shared.redis } : {}),
  });
  // OpenTelemetry, when an OTLP endpoint is set: loaded only then, this gateway's own provider.
  const tracing = options.tracing === undefined ? undefined : (await import('./observability/tracing/tracer.ts')).startTracing(options.tracing);
  const webProtectionReads = new WebProtectionReadSupport(logger); // learned at start or by the first read
  const createContext = contextFactory(transport, metrics, tail, exportLinks, options, responseCache, webProtectionReads);
  const originOf = originResolver(options.publicUrl, () => `http://${hostForUrl(options.host)}:${port}`);
  // Downloads: their own transport (pool and breaker), bounded, charged to the link's key (a window's pages too).
  const windowPages = (on: Transport) => (link: ExportLink, signal: AbortSignal) => trafficWindowPages(on.client({ apiKey: link.apiKey, signal, onCall: (call) => metrics.observeCall(call), onRetry }), link);
  const exportsArgs = { settings: options, links: exportLinks.store, trafficRoute: deviceRoutes.listTraffic, readinessProbe: READINESS_PROBE, metrics, logger, windowPages };
  const { transport: exportTransport, route: downloadExport } = exportDownloads({ ...exportsArgs, charge: admit.charge });
  // The SDL's schema, or the subgraph's (SUBGRAPH=1); with stale answers served, resolvers are wrapped to find the fields they reached.
  const { schema, plugins: subgraphPlugins } = schemaFor<GatewayContext>(options, logger, responseCache?.fieldWrapper);
  const httpServer = createServer({
    // Slow clients (slowloris) are cut: headers and the whole request each have a deadline,
    // checked this often (node's default, 30 s, would let a short deadline run long).
    headersTimeout: options.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(options.headersTimeoutMs / 4))),
  });
  httpServer.keepAliveTimeout = options.keepAliveTimeoutMs;
  answerClientErrorsInJson(httpServer);
  const { landingPagePlugin, ...disclosure } = disclosureOptions<GatewayContext>(options);
  const formatError = withoutSuggestions(
    createFormatError({
      includeStacktrace: options.stackTraces,
      onUnexpectedError: (error) => logger.error({ err: error }, 'internal error'),
    }),
    !options.fieldSuggestions,
  );
  const apollo = new ApolloServer<GatewayContext>({
    // graphql-jit executes; Apollo parses, validates and caches documents as usual.
    // An operation whose variables execution refuses has no estimate (extensions.cost).
    gateway: jitGateway(schema, { onVariablesRefused: cost.forget }),
    ...disclosure,
    csrfPrevention: true,
    ...apolloCaches(shared.redis),
    // Apollo's default appends a newline to JSON.stringify's output: the answer becomes a two-part
    // string that node must flatten (a copy of a large answer) before it can measure or write it.
    stringifyResult: (result) => JSON.stringify(result),
    // src/main.ts owns SIGTERM/SIGINT: it drains the gateway, then stops the embedded service.
    // Apollo's own handler would re-raise the signal once drained and kill the process first.
    stopOnTerminationSignals: false,
    validationRules: limits.validationRules,
    parseOptions: limits.parseOptions,
    allowBatchedHttpRequests: limits.allowBatchedHttpRequests,
    formatError,
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer }),
      ...apolloFeaturesOff<GatewayContext>(),
      noStorePlugin<GatewayContext>(),
      landingPagePlugin,
      operationResolutionPlugin<GatewayContext>(),
      ...subgraphPlugins,
      ...limits.plugins,
      // After the cost limit (a refused operation reserves nothing), before the cost report (which shows the bucket).
      ...(throttled ? [throttled.plugin] : []),
      observabilityPlugin<GatewayContext>({ logger, metrics, estimateOf: cost.estimateOf }),
      cost.plugin,
      ...(responseCache?.plugins ?? []),
    ],
  });
  await apollo.start();
  const subscriptions = startSubscriptionServer({
    httpServer,
    path: '/graphql',
    rules: { schema, parseOptions: limits.parseOptions, validationRules: limits.validationRules, maxCost: options.limits.maxCost },
    maxPayloadBytes: options.bodyLimitBytes,
    maxSubscriptionsPerConnection: options.tail.maxSubscriptionsPerConnection,
    maxConnectionsPerKey: options.tail.maxConnectionsPerKey,
    createContext,
    identity,
    originOf,
    formatError,
    logger,
    registry: metrics.registry,
    admitDocument: admit.document,
    keyAccepted: (apiKey) => upstreamTakesKey(transport.client({ apiKey, onCall: (call) => metrics.observeCall(call) })),
  });

  // GET / and the explorers' pages and files, when the landing page is on.
  const landing = landingRoutes(options);
  const corsHandler = corsMiddleware(options.corsOrigins, { localDevServers: options.embeddedDemo === true && !options.production });
  const refuse = refusal(metrics, logger);
  // MCP=1: the chosen operations as tools at /mcp, through the pipeline of /graphql (the SDK loaded only then).
  const mcp = options.mcp === undefined ? undefined : (await import('./mcp/index.ts')).mcpFor(options, { schema, apollo, createContext, identity, originOf, trusted: admit.trusted, tracing, registry: metrics.registry, logger });
  const operator = await operatorEndpoints({ metrics, transport, exportTransport, redisState: () => shared.redisState, host: options.host, metricsPort: options.metricsPort, metricsToken: options.metricsToken, identityReadiness: identity.readiness, logger });

  async function handleGraphQL(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    if (tracing === undefined) return answerGraphQL(req, res, requestId, undefined);
    // The request's span: from its first byte read to its answer written, whatever the answer.
    const trace = tracing.operation(req.headers);
    try {
      await answerGraphQL(req, res, requestId, trace);
    } finally {
      trace.end(res.statusCode);
    }
  }

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

  const gate = new ShutdownGate();
  httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!gate.admit(req, res)) return;
    const requestId = (typeof req.headers['x-request-id'] === 'string' && req.headers['x-request-id'].slice(0, 100)) || randomUUID();
    res.setHeader('x-request-id', requestId);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const fail = (error: unknown) => {
      logger.error({ err: error, requestId }, 'request failed');
      if (!res.headersSent) sendJson(res, 500, { errors: [{ message: 'Internal server error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
      else res.destroy();
    };
    if (operator.handle(req, res, path)) return;
    if (landing(req, res, path)) return;
    const withCors = (run: () => Promise<void>) => corsHandler(req, res, (error?: unknown) => (error ? fail(error) : void run().catch(fail)));
    if (path.startsWith(EXPORTS_PATH)) return withCors(() => downloadExport(req, res, path.slice(EXPORTS_PATH.length)));
    if (mcp && path === MCP_PATH) return mcp.handle(req, res, requestId, fail);
    if (mcp?.serveMetadata(req, res, path)) return;
    if (path !== '/graphql') return sendJson(res, 404, { errors: [{ message: 'Nothing is served at this path: GraphQL is at /graphql.', extensions: { code: 'NOT_FOUND' } }] });
    withCors(() => handleGraphQL(req, res, requestId));
  });

  port = await listen(httpServer, options.port, options.host);
  // Once, at start: an upstream that does not answer is said plainly to the operator (the gateway
  // serves anyway: the upstream may come up later, and /readyz tells when it does).
  const upstreamChecked = Promise.all([
    transport.answers().then(
      (answer) => {
        if (!answer.ok) logger.warn({ cause: answer.cause }, `the upstream (UPSTREAM_URL) does not answer: ${answer.cause}; serving anyway, /readyz is 503 until it does`);
      },
      () => {},
    ),
    webProtectionReads.checkAtStart(transport),
  ]).then(() => {});
  return {
    url: `http://${hostForUrl(options.host)}:${port}/graphql`,
    upstreamChecked,
    port,
    httpServer,
    metricsPort: operator.metricsPort,
    logger,
    async close() {
      gate.close();
      // Subscriptions first: their sockets close with 1012 (Service Restart), which clients retry;
      // then the tails they followed stop polling.
      await subscriptions.close();
      tail.close();
      await apollo.stop(); // drains: stops accepting, lets requests in flight finish
      await Promise.all([transport.close(), exportTransport.close()]);
      await tracing?.shutdown().catch(() => {});
      await shared.close();
      await operator.close();
      identity.close();
    },
  };
}
