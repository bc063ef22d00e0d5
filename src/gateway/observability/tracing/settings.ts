// Tracing as the standard OpenTelemetry variables ask for it. On only when an OTLP endpoint is
// set (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces) and
// neither OTEL_SDK_DISABLED nor OTEL_TRACES_EXPORTER=none turns it off. Headers, timeouts and
// compression of the export are the exporter's own OTEL_EXPORTER_OTLP_* variables; the sampler is
// OTEL_TRACES_SAMPLER (parent-based always-on by default); the resource, OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES.

export interface TracingSettings {
  /** Where spans are POSTed (OTLP/HTTP, JSON). */
  tracesUrl: string;
  /** OTEL_SERVICE_NAME, or the gateway's own name. */
  serviceName: string;
  /** OTEL_BSP_SCHEDULE_DELAY: how long spans wait to be sent in a batch. */
  scheduleDelayMs: number;
}

type Env = Record<string, string | undefined>;

/** A bad value: one line that names the variable (the caller turns it into a ConfigError). */
export class TracingSettingError extends Error {}

const SERVICE_NAME = 'security-graphql-gateway';

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function httpUrl(name: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TracingSettingError(`${name}: expected an http(s) URL such as http://collector:4318, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TracingSettingError(`${name}: expected an http(s) URL such as http://collector:4318, got "${raw}"`);
  return url;
}

export function tracingSettings(env: Env): TracingSettings | undefined {
  if (read(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const exporter = read(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter === 'none') return undefined;
  if (exporter !== undefined && exporter !== 'otlp') throw new TracingSettingError(`OTEL_TRACES_EXPORTER: expected otlp or none, got "${exporter}"`);
  const signal = read(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = read(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (signal === undefined && base === undefined) return undefined;
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = read(env, name);
    if (protocol !== undefined && protocol !== 'http/json') {
      throw new TracingSettingError(`${name}: this gateway exports OTLP over HTTP as JSON (http/json, which every OTLP/HTTP receiver takes), got "${protocol}"`);
    }
  }
  const tracesUrl =
    signal !== undefined
      ? httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', signal).href
      : `${httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base!).href.replace(/\/+$/, '')}/v1/traces`;
  const delay = read(env, 'OTEL_BSP_SCHEDULE_DELAY');
  if (delay !== undefined && !/^\d+$/.test(delay)) throw new TracingSettingError(`OTEL_BSP_SCHEDULE_DELAY: expected milliseconds, got "${delay}"`);
  return { tracesUrl, serviceName: read(env, 'OTEL_SERVICE_NAME') ?? SERVICE_NAME, scheduleDelayMs: delay === undefined ? 5_000 : Number(delay) };
}
