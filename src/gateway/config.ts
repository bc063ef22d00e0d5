// The gateway's settings, read from the environment in one place. A bad value is a ConfigError
// whose message is one line naming the setting, so the command can print it and stop.
import { tailSettings, type TailSettings } from './live-tail/settings.ts';
import { exportSettings, type ExportSettings } from './export-links/settings.ts';
import { DEFAULT_LIMITS, LIMIT_SETTINGS, type QueryLimits } from './limits/settings.ts';
import { tracingSettings, TracingSettingError, type TracingSettings } from './observability/tracing/settings.ts';
import type { ResponseCacheSettings } from './response-cache/store.ts';
import { ConfigError } from './config-error.ts';
import { identitySettings, type IdentitySettings } from './identity/settings.ts';
import type { TrustedDocumentsSettings } from './trusted-documents/index.ts';
import type { McpSettings } from './mcp/settings.ts';
import { subgraphSettings, type SubgraphSettings } from './subgraph/settings.ts';

export { ConfigError };

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

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function integerSetting(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name}: expected an integer from ${min} to ${max}, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name}: expected an integer from ${min} to ${max}, got ${value}`);
  return value;
}

export function booleanSetting(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name}: expected true or false, got "${raw}"`);
}

function urlSetting(env: Env, name: string): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name}: expected an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name}: expected an http(s) URL, got "${raw}"`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`${name}: expected a base URL without credentials, query or fragment`);
  }
  return url.href.replace(/\/+$/, '');
}

function originsSetting(env: Env, name: string): string[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  return raw.split(',').map((item) => {
    const origin = item.trim();
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new ConfigError(`${name}: "${origin}" is not an origin such as https://app.example.com`);
    }
    if (url.origin !== origin.replace(/\/$/, '')) {
      throw new ConfigError(`${name}: "${origin}" is not an origin such as https://app.example.com`);
    }
    return url.origin;
  });
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

function mcpSetting(env: Env): McpSettings | undefined {
  const operations = read(env, 'MCP_OPERATIONS');
  const allowMutations = booleanSetting(env, 'MCP_ALLOW_MUTATIONS', false);
  if (!booleanSetting(env, 'MCP', false)) {
    // Set without MCP, they would do nothing: the operator meant to turn the endpoint on.
    if (operations !== undefined) throw new ConfigError('MCP_OPERATIONS: the assistants\' endpoint is off; set MCP=1 to serve these operations at /mcp');
    if (allowMutations) throw new ConfigError('MCP_ALLOW_MUTATIONS: the assistants\' endpoint is off; set MCP=1 to serve it at /mcp');
    return undefined;
  }
  return { operations, allowMutations };
}

function metricsSettings(env: Env): Pick<GatewayConfig, 'metricsPort' | 'metricsToken'> {
  const port = read(env, 'METRICS_PORT') === undefined ? undefined : integerSetting(env, 'METRICS_PORT', 0, 0, 65535);
  if (port !== undefined && port !== 0 && port === integerSetting(env, 'PORT', 4000, 0, 65535)) throw new ConfigError(`METRICS_PORT: ${port} is PORT; give /metrics a port of its own`);
  const token = read(env, 'METRICS_TOKEN');
  // Never echoed: it is a secret.
  if (token !== undefined && (token.length < 16 || /\s/.test(token))) throw new ConfigError('METRICS_TOKEN: expected at least 16 characters without spaces');
  return { metricsPort: port, metricsToken: token };
}

function replicaSettings(env: Env): Pick<GatewayConfig, 'redisUrl' | 'workers'> {
  const raw = read(env, 'REDIS_URL');
  let redisUrl: string | undefined;
  if (raw !== undefined) {
    // Never echoed: the URL may carry Redis's password.
    const protocol = URL.canParse(raw) ? new URL(raw).protocol : undefined;
    if (protocol !== 'redis:' && protocol !== 'rediss:') {
      throw new ConfigError('REDIS_URL: expected a redis:// or rediss:// URL such as redis://redis:6379');
    }
    redisUrl = raw;
  }
  const workers = integerSetting(env, 'GATEWAY_WORKERS', 1, 1, 64);
  if (workers > 1 && redisUrl === undefined) {
    throw new ConfigError(`GATEWAY_WORKERS: ${workers} workers share throttling, cache, persisted queries, export links and tail pollers only through Redis: set REDIS_URL`);
  }
  return { redisUrl, workers };
}

function tracingSetting(env: Env): TracingSettings | undefined {
  try {
    return tracingSettings(env);
  } catch (error) {
    if (error instanceof TracingSettingError) throw new ConfigError(error.message);
    throw error;
  }
}

function httpTimeouts(env: Env): Pick<GatewayConfig, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'> {
  const requestTimeoutMs = integerSetting(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  const headersTimeoutMs = integerSetting(env, 'HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs), 100, 3_600_000);
  // node:http refuses a headers timeout longer than the request timeout.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS: expected at most REQUEST_TIMEOUT_MS (${requestTimeoutMs}), got ${headersTimeoutMs}`);
  }
  const keepAliveTimeoutMs = integerSetting(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000);
  return { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs };
}

function limitSettings(env: Env): QueryLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const name of Object.keys(LIMIT_SETTINGS) as (keyof QueryLimits)[]) {
    const { env: setting, min, max } = LIMIT_SETTINGS[name];
    limits[name] = integerSetting(env, setting, DEFAULT_LIMITS[name], min, max);
  }
  return limits;
}

/** LANDING_PAGE: true/false (the offline explorer with a link to Sandbox, or none), `sandbox`, or `graphiql`. */
function landingPageSetting(env: Env, production: boolean): Pick<GatewayConfig, 'landingPage' | 'landingPageKind'> {
  const raw = read(env, 'LANDING_PAGE')?.toLowerCase();
  if (raw === 'graphiql' || raw === 'sandbox') return { landingPage: true, landingPageKind: raw };
  try {
    return { landingPage: booleanSetting(env, 'LANDING_PAGE', !production), landingPageKind: 'default' };
  } catch {
    throw new ConfigError(`LANDING_PAGE: expected true, false, sandbox or graphiql, got "${raw}"`);
  }
}

const TRUSTED_MODES = ['off', 'log', 'enforce'] as const;

function trustedDocumentsSetting(env: Env): TrustedDocumentsSettings {
  const manifest = read(env, 'TRUSTED_DOCUMENTS');
  const raw = read(env, 'TRUSTED_DOCUMENTS_MODE')?.toLowerCase();
  const mode = raw ?? 'off';
  if (!(TRUSTED_MODES as readonly string[]).includes(mode)) throw new ConfigError(`TRUSTED_DOCUMENTS_MODE: expected off, log or enforce, got "${raw}"`);
  if (mode !== 'off' && manifest === undefined) throw new ConfigError(`TRUSTED_DOCUMENTS_MODE: ${mode} needs TRUSTED_DOCUMENTS, the manifest of trusted documents`);
  return { manifest, mode: mode as TrustedDocumentsSettings['mode'] };
}
