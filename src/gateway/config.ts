// The gateway's settings, read from the environment in one place. A bad value is a ConfigError
// whose message is one line naming the setting, so the command can print it and stop.
import { DEFAULT_LIMITS, LIMIT_SETTINGS, type QueryLimits } from './limits/settings.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface GatewayConfig {
  host: string;
  port: number;
  /** Base URL of a v1 service, without `/api/v1`; undefined means "start the embedded one". */
  upstreamUrl: string | undefined;
  production: boolean;
  /** Deadline of one upstream call. */
  upstreamTimeoutMs: number;
  /** Front-end origins allowed by CORS, besides Apollo Sandbox's. */
  corsOrigins: string[];
  introspection: boolean;
  landingPage: boolean;
  /** Level of the JSON logs (pino levels); `silent` turns them off. */
  logLevel: string;
  /** Query limits: MAX_DEPTH, MAX_ALIASES, MAX_DIRECTIVES, MAX_TOKENS, MAX_COST, MAX_UPSTREAM_CALLS, MAX_BATCH_SIZE. */
  limits: QueryLimits;
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
    upstreamUrl: urlSetting(env, 'UPSTREAM_URL'),
    production,
    upstreamTimeoutMs: integerSetting(env, 'UPSTREAM_TIMEOUT_MS', 10_000, 1, 600_000),
    corsOrigins: originsSetting(env, 'CORS_ORIGINS'),
    introspection: booleanSetting(env, 'INTROSPECTION', !production),
    landingPage: booleanSetting(env, 'LANDING_PAGE', !production),
    logLevel,
    limits: limitSettings(env),
  };
}

function limitSettings(env: Env): QueryLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const name of Object.keys(LIMIT_SETTINGS) as (keyof QueryLimits)[]) {
    const { env: setting, min, max } = LIMIT_SETTINGS[name];
    limits[name] = integerSetting(env, setting, DEFAULT_LIMITS[name], min, max);
  }
  return limits;
}
