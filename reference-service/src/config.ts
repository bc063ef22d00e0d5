import type { ApiKey } from './storage/keys.ts';
import type { SeedSizes } from './seed/generate.ts';
import { DatabaseSettingError, storeKind } from './storage/open-store.ts';

/** How the reference service starts: from the environment (parseV1Config) or from a test. */
export interface V1ServiceOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8080; 0 picks a free port. */
  port?: number;
  /**
   * SQLite file (its folder is created), `:memory:`, or a postgres:// (postgresql://) URL for
   * PostgreSQL. Default `./data/v1.sqlite`.
   */
  database?: string;
  /** `V1_API_KEYS` syntax: `key=1,other=*`. */
  apiKeys?: string;
  /** `demo` (default) fills an empty database with demo data; `none` leaves it as it is. */
  seed?: 'demo' | 'none';
  seedSizes?: Partial<SeedSizes>;
  /** Traffic entries per second appended by the simulator; 0 (default) is off. */
  simulateTraffic?: number;
  /** Where log lines go (default: stderr). Keys are never logged. */
  logger?: (line: string) => void;
}

/** A bad setting. The message is one line naming the setting and what is wrong with it. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

// An empty variable counts as unset, as shells and compose files make unsetting awkward.
function setting(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function quoted(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

function integerSetting(env: Env, name: string, min: number, max: number): number | undefined {
  const text = setting(env, name);
  if (text === undefined) return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name}: ${quoted(text)} is not an integer from ${min} to ${max}`);
  }
  return value;
}

/**
 * Parses `V1_API_KEYS`: comma-separated `key=organization` pairs, `key=*` for an admin key.
 * Messages and labels name a pair by its position, never by the key.
 */
export function parseApiKeys(text: string | undefined): ApiKey[] {
  const name = 'V1_API_KEYS';
  if (text === undefined || text.trim() === '') return [];
  const keys: ApiKey[] = [];
  const seen = new Set<string>();
  text.split(',').forEach((pair, index) => {
    const position = `pair ${index + 1}`;
    const at = pair.lastIndexOf('=');
    if (at < 0) throw new ConfigError(`${name}: ${position} has no "="; expected key=organization or key=*`);
    const key = pair.slice(0, at).trim();
    const scope = pair.slice(at + 1).trim();
    if (key === '') throw new ConfigError(`${name}: ${position} has an empty key`);
    if (/\s/.test(key)) throw new ConfigError(`${name}: ${position} has white space inside its key`);
    if (seen.has(key)) throw new ConfigError(`${name}: ${position} repeats a key given earlier`);
    seen.add(key);
    let organizationId: number | null;
    if (scope === '*') {
      organizationId = null;
    } else if (/^[1-9]\d*$/.test(scope) && Number.isSafeInteger(Number(scope))) {
      organizationId = Number(scope);
    } else {
      throw new ConfigError(`${name}: ${position} has organization ${quoted(scope)}; expected a positive integer or *`);
    }
    keys.push({ key, organizationId, label: `${name} ${position}` });
  });
  return keys;
}

/** Reads the service's settings from the environment (see the contract's *Reference service*). */
export function parseV1Config(env: Env): V1ServiceOptions {
  const options: V1ServiceOptions = {};
  const host = setting(env, 'V1_HOST');
  if (host !== undefined) options.host = host;
  const port = integerSetting(env, 'V1_PORT', 0, 65535);
  if (port !== undefined) options.port = port;
  const database = setting(env, 'V1_DATABASE');
  if (database !== undefined) {
    try {
      storeKind(database);
    } catch (error) {
      if (error instanceof DatabaseSettingError) throw new ConfigError(error.message);
      throw error;
    }
    options.database = database;
  }
  const apiKeys = setting(env, 'V1_API_KEYS');
  if (apiKeys !== undefined) {
    // Parsed here only to report a bad value before anything starts: the option is the text
    // itself (the service parses it when it starts), as tests and embedders give it.
    parseApiKeys(apiKeys);
    options.apiKeys = apiKeys;
  }
  const seed = setting(env, 'V1_SEED');
  if (seed !== undefined) {
    if (seed !== 'demo' && seed !== 'none') throw new ConfigError(`V1_SEED: ${quoted(seed)} is not one of demo, none`);
    options.seed = seed;
  }
  const simulate = integerSetting(env, 'V1_SIMULATE_TRAFFIC', 0, 100_000);
  if (simulate !== undefined) options.simulateTraffic = simulate;
  const devices = integerSetting(env, 'V1_SEED_DEVICES', 1, 1_000_000);
  const traffic = integerSetting(env, 'V1_SEED_TRAFFIC', 0, 100_000_000);
  const hotTraffic = integerSetting(env, 'V1_SEED_HOT_TRAFFIC', 0, 100_000_000);
  if (devices !== undefined || traffic !== undefined || hotTraffic !== undefined) {
    options.seedSizes = {
      ...(devices !== undefined && { devices }),
      ...(traffic !== undefined && { traffic }),
      ...(hotTraffic !== undefined && { hotTraffic }),
    };
  }
  return options;
}
