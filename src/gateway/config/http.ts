// Settings of the HTTP server itself: how long slow or idle clients may take, and which explorer
// GET /graphql serves.
import { ConfigError } from '../config-error.ts';
import { booleanSetting, integerSetting, read, type Env } from './read.ts';

export function httpTimeouts(env: Env): { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number } {
  const requestTimeoutMs = integerSetting(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  const headersTimeoutMs = integerSetting(env, 'HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs), 100, 3_600_000);
  // node:http refuses a headers timeout longer than the request timeout.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS: expected at most REQUEST_TIMEOUT_MS (${requestTimeoutMs}), got ${headersTimeoutMs}`);
  }
  const keepAliveTimeoutMs = integerSetting(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000);
  return { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs };
}

/** LANDING_PAGE: true/false (the offline explorer with a link to Sandbox, or none), `sandbox`, or `graphiql`. */
export function landingPageSetting(env: Env, production: boolean): { landingPage: boolean; landingPageKind: 'default' | 'sandbox' | 'graphiql' } {
  const raw = read(env, 'LANDING_PAGE')?.toLowerCase();
  if (raw === 'graphiql' || raw === 'sandbox') return { landingPage: true, landingPageKind: raw };
  try {
    return { landingPage: booleanSetting(env, 'LANDING_PAGE', !production), landingPageKind: 'default' };
  } catch {
    throw new ConfigError(`LANDING_PAGE: expected true, false, sandbox or graphiql, got "${raw}"`);
  }
}
