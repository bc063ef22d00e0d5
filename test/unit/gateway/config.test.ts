// The gateway's settings (graphql.md, "Running"): defaults, what production changes, and a bad
// value of any setting is a ConfigError of one line that names the setting.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseGatewayConfig } from '../../../src/gateway/config.ts';
import { LIMIT_SETTINGS } from '../../../src/gateway/limits/settings.ts';

function refusal(env: Record<string, string>): ConfigError {
  try {
    parseGatewayConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('gateway settings', () => {
  it('has the documented defaults', () => {
    const config = parseGatewayConfig({});
    // The settings of the HTTP surface; other suites check those of limits and upstream resilience.
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 4000,
      upstreamUrl: undefined,
      production: false,
      upstreamTimeoutMs: 10_000,
      corsOrigins: [],
      introspection: true,
      landingPage: true,
      fieldSuggestions: true,
      stackTraces: false,
      bodyLimitBytes: 1_048_576,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      logLevel: 'info',
    });
  });

  it('turns the landing page, introspection and suggestions off in production, each back on by its setting', () => {
    expect(parseGatewayConfig({ NODE_ENV: 'production' })).toMatchObject({
      production: true,
      introspection: false,
      landingPage: false,
      fieldSuggestions: false,
      stackTraces: false,
    });
    expect(parseGatewayConfig({ NODE_ENV: 'production', INTROSPECTION: 'true' })).toMatchObject({ introspection: true, landingPage: false });
    expect(parseGatewayConfig({ NODE_ENV: 'production', LANDING_PAGE: 'on' })).toMatchObject({ landingPage: true, landingPageKind: 'default', introspection: false });
    expect(parseGatewayConfig({})).toMatchObject({ landingPage: true, landingPageKind: 'default' });
    expect(parseGatewayConfig({ LANDING_PAGE: 'graphiql' })).toMatchObject({ landingPage: true, landingPageKind: 'graphiql' });
    expect(parseGatewayConfig({ LANDING_PAGE: 'Sandbox' })).toMatchObject({ landingPage: true, landingPageKind: 'sandbox' });
    expect(() => parseGatewayConfig({ LANDING_PAGE: 'playground' })).toThrow('LANDING_PAGE: expected true, false, sandbox or graphiql, got "playground"');
    expect(parseGatewayConfig({ NODE_ENV: 'production', FIELD_SUGGESTIONS: '1' })).toMatchObject({ fieldSuggestions: true, introspection: false });
    expect(parseGatewayConfig({ NODE_ENV: 'production', STACK_TRACES: 'yes' })).toMatchObject({ stackTraces: true, fieldSuggestions: false });
    expect(parseGatewayConfig({ NODE_ENV: 'development' })).toMatchObject({ production: false, introspection: true });
    // Outside production a setting can still turn one off.
    expect(parseGatewayConfig({ INTROSPECTION: 'false', FIELD_SUGGESTIONS: 'off' })).toMatchObject({ introspection: false, fieldSuggestions: false });
  });

  it('takes UPSTREAM_URL with or without the API path: /api/v1 names the same service', () => {
    expect(parseGatewayConfig({ UPSTREAM_URL: 'https://v1.example.com/api/v1/' }).upstreamUrl).toBe('https://v1.example.com');
    expect(parseGatewayConfig({ UPSTREAM_URL: 'https://v1.example.com/base/api/v1' }).upstreamUrl).toBe('https://v1.example.com/base');
    expect(parseGatewayConfig({ UPSTREAM_URL: 'https://v1.example.com/api/v10' }).upstreamUrl).toBe('https://v1.example.com/api/v10');
  });

  it('reads good values, trimming and normalizing them', () => {
    const config = parseGatewayConfig({
      HOST: ' 0.0.0.0 ',
      PORT: '0',
      UPSTREAM_URL: 'https://v1.example.com/base/',
      CORS_ORIGINS: 'https://app.example.com, http://localhost:5173/',
      BODY_LIMIT_BYTES: '2048',
      HEADERS_TIMEOUT_MS: '500',
      REQUEST_TIMEOUT_MS: '500',
      KEEP_ALIVE_TIMEOUT_MS: '1000',
      UPSTREAM_TIMEOUT_MS: '2500',
      LOG_LEVEL: 'silent',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 0,
      upstreamUrl: 'https://v1.example.com/base',
      corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
      bodyLimitBytes: 2048,
      headersTimeoutMs: 500,
      requestTimeoutMs: 500,
      keepAliveTimeoutMs: 1000,
      upstreamTimeoutMs: 2500,
      logLevel: 'silent',
    });
    // An empty variable counts as unset.
    expect(parseGatewayConfig({ PORT: '', UPSTREAM_URL: ' ' })).toMatchObject({ port: 4000, upstreamUrl: undefined });
    // A shorter request timeout pulls the default headers timeout down with it.
    expect(parseGatewayConfig({ REQUEST_TIMEOUT_MS: '2000' })).toMatchObject({ headersTimeoutMs: 2000, requestTimeoutMs: 2000 });
  });

  const limitCases = Object.values(LIMIT_SETTINGS).flatMap(({ env, min, max }) => [
    [env, 'lots'],
    [env, String(max + 1)],
    ...(min > 0 ? [[env, String(min - 1)]] : []),
  ]);

  it.each([
    ['PORT', 'abc'],
    ['PORT', '65536'],
    ['PORT', '-1'],
    ['UPSTREAM_URL', 'ftp://x'],
    ['UPSTREAM_URL', 'not a url'],
    ['UPSTREAM_URL', 'https://user:secret@v1.example.com'],
    ['UPSTREAM_URL', 'https://v1.example.com/?a=1'],
    ['UPSTREAM_TIMEOUT_MS', '0'],
    ['UPSTREAM_TIMEOUT_MS', '10s'],
    ['CORS_ORIGINS', 'app.example.com'],
    ['CORS_ORIGINS', 'https://app.example.com/path'],
    ['CORS_ORIGINS', 'https://ok.example.com,*'],
    ['INTROSPECTION', 'maybe'],
    ['LANDING_PAGE', '2'],
    ['FIELD_SUGGESTIONS', 'sometimes'],
    ['STACK_TRACES', 'enabled'],
    ['BODY_LIMIT_BYTES', '1MB'],
    ['BODY_LIMIT_BYTES', '10'],
    ['BODY_LIMIT_BYTES', '1000000000'],
    ['HEADERS_TIMEOUT_MS', 'soon'],
    ['HEADERS_TIMEOUT_MS', '0'],
    ['REQUEST_TIMEOUT_MS', '1.5'],
    ['REQUEST_TIMEOUT_MS', '99'],
    ['KEEP_ALIVE_TIMEOUT_MS', 'forever'],
    ['LOG_LEVEL', 'verbose'],
    ...limitCases,
  ])('refuses %s=%j with one line naming it', (name, value) => {
    const error = refusal({ [name]: value });
    expect(error.name).toBe('ConfigError');
    expect(error.message.startsWith(`${name}: `)).toBe(true);
    expect(error.message).not.toMatch(/[\r\n]/);
  });

  // Every setting config.ts and config/ read, found in their source, so that one added later is covered too.
  const configDir = new URL('../../../src/gateway/config/', import.meta.url);
  const source = [new URL('../../../src/gateway/config.ts', import.meta.url), ...readdirSync(configDir).map((name) => new URL(name, configDir))]
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
  const BAD_VALUE: Record<string, string> = { integerSetting: 'twelve', booleanSetting: 'perhaps', urlSetting: 'ftp://x', originsSetting: 'nowhere' };
  const discovered = [...source.matchAll(/\b(integerSetting|booleanSetting|urlSetting|originsSetting)\(env, '([A-Z0-9_]+)'/g)].map(
    ([, kind, name]) => [name!, BAD_VALUE[kind!]!] as const,
  );

  it('finds the settings in config.ts and config/', () => {
    expect(discovered.map(([name]) => name)).toEqual(
      expect.arrayContaining(['PORT', 'UPSTREAM_URL', 'CORS_ORIGINS', 'INTROSPECTION', 'BODY_LIMIT_BYTES', 'HEADERS_TIMEOUT_MS']),
    );
  });

  it.each(discovered)('refuses a bad %s (%j) with one line naming it', (name, value) => {
    const error = refusal({ [name]: value });
    expect(error.message.startsWith(`${name}: `)).toBe(true);
    expect(error.message).not.toMatch(/[\r\n]/);
  });

  it('refuses a headers timeout longer than the request timeout, naming HEADERS_TIMEOUT_MS', () => {
    const error = refusal({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' });
    expect(error.message).toBe('HEADERS_TIMEOUT_MS: expected at most REQUEST_TIMEOUT_MS (1000), got 5000');
  });

  it('never repeats credentials of a refused UPSTREAM_URL', () => {
    const error = refusal({ UPSTREAM_URL: 'https://user:secret@v1.example.com' });
    expect(error.message).not.toContain('secret');
  });
});
