// Apollo Server's built-in features that the gateway turns off, each for its reason. Apollo adds
// each of them on its own unless a plugin says it is off.
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';

export function apolloFeaturesOff<TContext extends BaseContext>(): ApolloServerPlugin<TContext>[] {
  return [
    // No @cacheControl in the schema: the plugin would only time every field to say `no-store`.
    ApolloServerPluginCacheControlDisabled(),
    // Inline traces are for federated subgraphs, which this schema is not: Apollo would still
    // load its protobuf code, and hold it for the process's life, to find that out.
    ApolloServerPluginInlineTraceDisabled(),
    // Usage and schema reporting would start when APOLLO_KEY (with APOLLO_GRAPH_REF, or
    // APOLLO_SCHEMA_REPORTING) happens to be in the environment, sending every operation's shape
    // and the schema to Apollo's cloud. A security product's gateway sends nothing anywhere it
    // was not told to: its traces go where OTEL_EXPORTER_OTLP_ENDPOINT says.
    ApolloServerPluginUsageReportingDisabled(),
    ApolloServerPluginSchemaReportingDisabled(),
  ] as ApolloServerPlugin<TContext>[];
}
