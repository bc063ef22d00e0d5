// The gateway's HTTP server: Apollo Server 5 on a plain node:http server that also answers the
// operator endpoints. This file makes one gateway instance's parts (its state, never a module's),
// wires them together and owns the server's lifecycle; the pieces it wires are in server/: Apollo
// and its plugins, the /graphql route, which path goes where, the node server, the start's check.
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config.ts';
import { contextFactory, type GatewayContext } from './context.ts';
import { deviceRoutes, READINESS_PROBE } from './domains/protection-devices/routes.ts';
import { trafficWindowPages } from './domains/protection-devices/traffic-export.ts';
import { upstreamTakesKey } from './domains/protection-devices/operations.ts';
import { ROUTE_CACHE_RULES } from './domains/routes.ts';
import { corsMiddleware } from './http/cors.ts';
import { refusal } from './http/refusal.ts';
import { ShutdownGate } from './http/shutdown-gate.ts';
import { limitOptions } from './limits/index.ts';
import { throttleFor } from './throttling/index.ts';
import { costReport } from './observability/cost-extension.ts';
import { createLogger } from './observability/logger.ts';
import { GatewayMetrics } from './observability/metrics.ts';
import { liveTail } from './live-tail/index.ts';
import { startSubscriptionServer } from './subscriptions/websocket.ts';
import { exportDownloads, exportLinksFor, type ExportLink } from './export-links/index.ts';
import { hostForUrl, originResolver } from './http/origin.ts';
import { landingRoutes } from './landing/routes.ts';
import { operatorEndpoints } from './http/operator-endpoints.ts';
import { responseCacheFor } from './response-cache/index.ts';
import { trustedDocumentsFor } from './trusted-documents/index.ts';
import { admission } from './admission/index.ts';
import { sharedState } from './shared-state/index.ts';
import { schemaFor } from './subgraph/index.ts';
import { Transport } from './upstream/transport.ts';
import { WebProtectionReadSupport } from './domains/web-protection/read-support.ts';
import { identityFor } from './identity/index.ts';
import { listen } from './http/listen.ts';
import { gatewayApollo, gatewayFormatError } from './server/apollo.ts';
import { graphqlRoute } from './server/graphql-route.ts';
import { nodeServer } from './server/node-server.ts';
import { requestListener } from './server/request-routes.ts';
import { checkUpstreamAtStart } from './server/upstream-check.ts';

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
  const httpServer = nodeServer(options);
  const formatError = gatewayFormatError(options, logger);
  const apollo = gatewayApollo({ options, schema, httpServer, logger, metrics, redis: shared.redis, limits, cost, throttled, responseCache, subgraphPlugins }, formatError);
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

  const graphql = graphqlRoute({ options, apollo, createContext, identity, admit, refuse, originOf, tracing, logger });
  const gate = new ShutdownGate();
  httpServer.on('request', requestListener({ gate, logger, operator, landing, corsHandler, downloadExport, mcp, graphql }));

  port = await listen(httpServer, options.port, options.host);
  const upstreamChecked = checkUpstreamAtStart(transport, webProtectionReads, logger);
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
