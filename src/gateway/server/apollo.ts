// Apollo Server as the gateway runs it: graphql-jit executes, Apollo parses, validates and caches,
// and the plugins run in the order each one's comment asks for. The error formatter is shared with
// the WebSocket server, so an error reads the same over both.
import type { Server } from 'node:http';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config.ts';
import type { GatewayContext } from '../context.ts';
import { apolloCaches } from '../executor/apollo-caches.ts';
import { apolloFeaturesOff } from '../executor/apollo-features-off.ts';
import { jitGateway } from '../executor/executor.ts';
import { operationResolutionPlugin } from '../executor/operation-resolution.ts';
import { createFormatError, withoutSuggestions } from '../format-error.ts';
import { disclosureOptions } from '../http/disclosure.ts';
import { noStorePlugin } from '../http/no-store.ts';
import type { LimitOptions } from '../limits/apollo.ts';
import type { CostReport } from '../observability/cost-extension.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import { observabilityPlugin } from '../observability/plugin.ts';
import type { GatewayResponseCache } from '../response-cache/index.ts';
import type { SharedRedis } from '../shared-state/redis.ts';
import type { Throttle } from '../throttling/plugin.ts';

export interface ApolloParts {
  options: GatewayConfig;
  schema: GraphQLSchema;
  httpServer: Server;
  logger: Logger;
  metrics: GatewayMetrics;
  redis: SharedRedis | undefined;
  limits: LimitOptions<GatewayContext>;
  cost: CostReport<GatewayContext>;
  throttled: Throttle<GatewayContext> | undefined;
  responseCache: GatewayResponseCache<GatewayContext> | undefined;
  subgraphPlugins: ApolloServerPlugin<GatewayContext>[];
}

export function gatewayFormatError(options: GatewayConfig, logger: Logger) {
  return withoutSuggestions(
    createFormatError({
      includeStacktrace: options.stackTraces,
      onUnexpectedError: (error) => logger.error({ err: error }, 'internal error'),
    }),
    !options.fieldSuggestions,
  );
}

export function gatewayApollo(parts: ApolloParts, formatError: ReturnType<typeof gatewayFormatError>): ApolloServer<GatewayContext> {
  const { options, schema, httpServer, logger, metrics, limits, cost, throttled, responseCache } = parts;
  const { landingPagePlugin, ...disclosure } = disclosureOptions<GatewayContext>(options);
  return new ApolloServer<GatewayContext>({
    // graphql-jit executes; Apollo parses, validates and caches documents as usual.
    // An operation whose variables execution refuses has no estimate (extensions.cost).
    gateway: jitGateway(schema, { onVariablesRefused: cost.forget }),
    ...disclosure,
    csrfPrevention: true,
    ...apolloCaches(parts.redis),
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
      ...parts.subgraphPlugins,
      ...limits.plugins,
      // After the cost limit (a refused operation reserves nothing), before the cost report (which shows the bucket).
      ...(throttled ? [throttled.plugin] : []),
      observabilityPlugin<GatewayContext>({ logger, metrics, estimateOf: cost.estimateOf }),
      cost.plugin,
      ...(responseCache?.plugins ?? []),
    ],
  });
}
