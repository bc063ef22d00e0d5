// Settings an operator runs the gateway with: /metrics, replicas and workers sharing through
// Redis, tracing.
import { ConfigError } from '../config-error.ts';
import { tracingSettings, TracingSettingError, type TracingSettings } from '../observability/tracing/settings.ts';
import { integerSetting, read, type Env } from './read.ts';

export function metricsSettings(env: Env): { metricsPort: number | undefined; metricsToken: string | undefined } {
  const port = read(env, 'METRICS_PORT') === undefined ? undefined : integerSetting(env, 'METRICS_PORT', 0, 0, 65535);
  if (port !== undefined && port !== 0 && port === integerSetting(env, 'PORT', 4000, 0, 65535)) throw new ConfigError(`METRICS_PORT: ${port} is PORT; give /metrics a port of its own`);
  const token = read(env, 'METRICS_TOKEN');
  // Never echoed: it is a secret.
  if (token !== undefined && (token.length < 16 || /\s/.test(token))) throw new ConfigError('METRICS_TOKEN: expected at least 16 characters without spaces');
  return { metricsPort: port, metricsToken: token };
}

export function replicaSettings(env: Env): { redisUrl: string | undefined; workers: number } {
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

export function tracingSetting(env: Env): TracingSettings | undefined {
  try {
    return tracingSettings(env);
  } catch (error) {
    if (error instanceof TracingSettingError) throw new ConfigError(error.message);
    throw error;
  }
}
