// Reading one setting from the environment: an empty value counts as unset, and a bad one is a
// ConfigError whose message is one line naming the setting.
import { ConfigError } from '../config-error.ts';

export type Env = Record<string, string | undefined>;

export function read(env: Env, name: string): string | undefined {
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

export function urlSetting(env: Env, name: string): string | undefined {
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

export function originsSetting(env: Env, name: string): string[] {
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
