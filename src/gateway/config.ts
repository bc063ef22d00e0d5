// The gateway's settings, read from the environment in one place. A bad value is a ConfigError
// whose message is one line naming the setting, so the command can print it and stop. The readers
// and the settings checked together live in config/ (read, http, operator, features).
import { tailSettings, type TailSettings } from './live-tail/settings.ts';
import { exportSettings, type ExportSettings } from './export-links/settings.ts';
import type { QueryLimits } from './limits/settings.ts';
import type { TracingSettings } from './observability/tracing/settings.ts';
import type { ResponseCacheSettings } from './response-cache/store.ts';
import { ConfigError } from './config-error.ts';
import { identitySettings, type IdentitySettings } from './identity/settings.ts';
import type { TrustedDocumentsSettings } from './trusted-documents/index.ts';
import type { McpSettings } from './mcp/settings.ts';
import { subgraphSettings, type SubgraphSettings } from './subgraph/settings.ts';
import { booleanSetting, integerSetting, originsSetting, read, urlSetting, type Env } from './config/read.ts';
import { httpTimeouts, landingPageSetting } from './config/http.ts';
import { metricsSettings, replicaSettings, tracingSetting } from './config/operator.ts';
import { limitSettings, mcpSetting, trustedDocumentsSetting } from './config/features.ts';

export { booleanSetting, ConfigError, integerSetting };

export interface GatewayConfig {
  host: string;
  port: number;
  /** Base URL of a v1 service, without `/api/v1`; undefined means "start the embedded one". */
  upstreamUrl: string | undefined;
  production: boolean;
  /** Deadline of one upstream call, its retries included. */
  upstreamTimeoutMs: number;
  /** Deadline of all the upstream calls of one GraphQL operation; a call past it fails UPSTREAM_TIMEOUT. */
  operationTimeoutMs: number;
  /** Extra attempts of a failed upstream GET (mutations are never retried); 0 disables retries. */
  upstreamRetries: number;
  /** Consecutive availability failures that open an upstream's circuit; 0 never opens it. */
  upstreamCircuitFailures: number;
  /** How long an open circuit fails calls fast before one probe call is let through. */
  upstreamCircuitCooldownMs: number;
  /** Cap on an upstream response body; a larger one is UPSTREAM_BAD_RESPONSE. */
  upstreamMaxBodyBytes: number;
  /** Front-end origins allowed by CORS, besides Apollo Sandbox's. */
  corsOrigins: string[];
  introspection: boolean;
  landingPage: boolean;
  /**
   * LANDING_PAGE: `default` (true): GraphiQL served by the gateway, works offline, with Apollo
   * Sandbox one click away; `sandbox`: Apollo Sandbox (from its CDN); `graphiql`: GraphiQL alone.
   */
  landingPageKind: 'default' | 'sandbox' | 'graphiql';
  /** "Did you mean …?" in error messages: they spell out the schema to whoever probes it. */
  fieldSuggestions: boolean;
  /** `extensions.stacktrace` in error responses (debugging only; off by default everywhere). */
  stackTraces: boolean;
  /** Largest request body; a larger one is answered 413 without being read. */
  bodyLimitBytes: number;
  /** Time a client has to send its request headers; a slower one is cut (slowloris). */
  headersTimeoutMs: number;
  /** Time a client has to send its whole request (headers and body). */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** Level of the JSON logs (pino levels); `silent` turns them off. */
  logLevel: string;
  /** Query limits: MAX_DEPTH, MAX_ALIASES, MAX_DIRECTIVES, MAX_TOKENS, MAX_COST, MAX_UPSTREAM_CALLS, MAX_BATCH_SIZE. */
  limits: QueryLimits;
  /** The live traffic tail: TAIL_POLL_INTERVAL_MS, TAIL_MAX_FAILURE_S, TAIL_MAX_SUBSCRIPTIONS_PER_CONNECTION, TAIL_MAX_CONNECTIONS_PER_KEY, TAIL_MAX_POLLERS_PER_KEY. */
  tail: TailSettings;
  /** RATE_LIMIT_CALLS (0: off) and RATE_LIMIT_RESTORE_PER_S: each key's bucket of upstream calls. */
  rateLimit: { calls: number; restorePerSecond: number };
  /** TRUSTED_DOCUMENTS (a client preset's persisted-documents.json) and TRUSTED_DOCUMENTS_MODE. */
  trustedDocuments: TrustedDocumentsSettings;
  /** RESPONSE_CACHE_TTL_S, STALE_IF_ERROR_S (both in ms here) and RESPONSE_CACHE_MAX_BYTES. */
  responseCache: ResponseCacheSettings;
  /** EXPORT_LINK_TTL_S, in ms: how long an export link works. */
  exportLinkTtlMs: number;
  exports: ExportSettings;
  /** PUBLIC_URL: the origin clients reach the gateway at, for the links it hands out; unset: the request's Host. */
  publicUrl: string | undefined;
  /** OpenTelemetry tracing from the standard OTEL_* variables; undefined: off (no SDK loaded). */
  tracing: TracingSettings | undefined;
  /** REDIS_URL: the Redis replicas share state through; undefined: each keeps its own. */
  redisUrl: string | undefined;
  /** GATEWAY_WORKERS: processes serving one port on this machine (more than 1 needs REDIS_URL). */
  workers: number;
  /** MCP=1: operations as Model Context Protocol tools at /mcp (MCP_OPERATIONS, MCP_ALLOW_MUTATIONS); undefined: off. */
  mcp: McpSettings | undefined;
  /** METRICS_PORT: /metrics on a port of its own (and not on PORT); unset: on PORT. */
  metricsPort?: number | undefined;
  /** METRICS_TOKEN: /metrics asks `Authorization: Bearer <token>`; unset: open. */
  metricsToken?: string | undefined;
  /** AUTH_MODE, OIDC_ISSUER, OIDC_AUDIENCE, OIDC_ORGANIZATION_CLAIM, OIDC_SCOPE_CLAIM, UPSTREAM_CREDENTIALS. */
  identity: IdentitySettings;
  /** SUBGRAPH (serve as a Federation 2 subgraph) and SUBGRAPH_SECRET (what the router must send in X-Subgraph-Secret). */
  subgraph: SubgraphSettings;
  /** STOP_TIMEOUT_MS: how long a stop may take; past it the process exits whatever still hangs. */
  stopTimeoutMs: number;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function parseGatewayConfig(env: Env = process.env): GatewayConfig {
  const production = read(env, 'NODE_ENV') === 'production';
  const logLevel = read(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL: expected one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  return {
    host: read(env, 'HOST') ?? '127.0.0.1',
    port: integerSetting(env, 'PORT', 4000, 0, 65535),
    // The service's base URL; one given with the API's own path (`…/api/v1`) means the same service.
    upstreamUrl: urlSetting(env, 'UPSTREAM_URL')?.replace(/\/api\/v1$/, ''),
    production,
    upstreamTimeoutMs: integerSetting(env, 'UPSTREAM_TIMEOUT_MS', 10_000, 1, 600_000),
    operationTimeoutMs: integerSetting(env, 'OPERATION_TIMEOUT_MS', 15_000, 1, 600_000),
    upstreamRetries: integerSetting(env, 'UPSTREAM_RETRIES', 2, 0, 10),
    upstreamCircuitFailures: integerSetting(env, 'UPSTREAM_CIRCUIT_FAILURES', 5, 0, 10_000),
    upstreamCircuitCooldownMs: integerSetting(env, 'UPSTREAM_CIRCUIT_COOLDOWN_MS', 5_000, 1, 3_600_000),
    upstreamMaxBodyBytes: integerSetting(env, 'UPSTREAM_MAX_BODY_BYTES', 8 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    corsOrigins: originsSetting(env, 'CORS_ORIGINS'),
    introspection: booleanSetting(env, 'INTROSPECTION', !production),
    ...landingPageSetting(env, production),
    fieldSuggestions: booleanSetting(env, 'FIELD_SUGGESTIONS', !production),
    stackTraces: booleanSetting(env, 'STACK_TRACES', false),
    bodyLimitBytes: integerSetting(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    ...httpTimeouts(env),
    logLevel,
    limits: limitSettings(env),
    tail: tailSettings((name, fallback, min, max) => integerSetting(env, name, fallback, min, max)),
    rateLimit: {
      calls: integerSetting(env, 'RATE_LIMIT_CALLS', 0, 0, 10_000_000),
      restorePerSecond: integerSetting(env, 'RATE_LIMIT_RESTORE_PER_S', 10, 1, 10_000_000),
    },
    trustedDocuments: trustedDocumentsSetting(env),
    responseCache: {
      ttlMs: integerSetting(env, 'RESPONSE_CACHE_TTL_S', 0, 0, 86_400) * 1000,
      staleIfErrorMs: integerSetting(env, 'STALE_IF_ERROR_S', 0, 0, 7 * 86_400) * 1000,
      maxBytes: integerSetting(env, 'RESPONSE_CACHE_MAX_BYTES', 16 * 1024 * 1024, 64 * 1024, 4 * 1024 * 1024 * 1024),
    },
    exportLinkTtlMs: integerSetting(env, 'EXPORT_LINK_TTL_S', 300, 1, 86_400) * 1000,
    exports: exportSettings((name, fallback, min, max) => integerSetting(env, name, fallback, min, max)),
    publicUrl: urlSetting(env, 'PUBLIC_URL'),
    tracing: tracingSetting(env),
    ...replicaSettings(env),
    mcp: mcpSetting(env),
    ...metricsSettings(env),
    identity: identitySettings(env),
    subgraph: subgraphSettings(booleanSetting(env, 'SUBGRAPH', false), read(env, 'SUBGRAPH_SECRET'), (message) => new ConfigError(message)),
    stopTimeoutMs: integerSetting(env, 'STOP_TIMEOUT_MS', 20_000, 1_000, 3_600_000),
  };
}
