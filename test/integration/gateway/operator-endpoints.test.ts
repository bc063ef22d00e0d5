// What an operator reads from a running gateway: which build it is (/version, /healthz, the
// build_info metric), how long GraphQL operations take (a histogram by operation name and
// outcome), and /metrics kept off the public port (METRICS_PORT) or behind a bearer token
// (METRICS_TOKEN). With neither, /metrics stays open on the gateway's port, as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { postGraphQL, startGatewayOn, startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';

let stack: Stack;
const origin = (url: string) => new URL(url).origin;

beforeAll(async () => {
  stack = await startStack({ key: TEST_KEYS.admin });
});

afterAll(async () => {
  await stack?.close();
});

describe('the build', () => {
  it('/version names the version, the commit, the build time and node', async () => {
    const response = await fetch(`${origin(stack.gateway.url)}/version`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['builtAt', 'commit', 'node', 'version']);
    expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(body.node).toBe(process.version);
  });

  it('build_info is 1 with the same version as its label', async () => {
    const text = await (await fetch(`${origin(stack.gateway.url)}/metrics`)).text();
    const version = ((await (await fetch(`${origin(stack.gateway.url)}/version`)).json()) as { version: string }).version;
    expect(text).toMatch(new RegExp(`^build_info\\{version="${version.replace(/\./g, '\\.')}",commit="[^"]+",node="${process.version}"\\} 1$`, 'm'));
  });
});

describe('graphql_operation_duration_seconds', () => {
  it('times each operation by name and outcome, ok or error', async () => {
    await postGraphQL(stack.gateway.url, { query: 'query Timed { protectionDevices(first: 1) { totalCount } }' }, { 'x-service-token': TEST_KEYS.admin });
    await postGraphQL(stack.gateway.url, { query: 'query TimedBadly { protectionDevice(id: "abc") { id } }' }, { 'x-service-token': TEST_KEYS.admin });
    const text = await (await fetch(`${origin(stack.gateway.url)}/metrics`)).text();
    expect(text).toMatch(/^graphql_operation_duration_seconds_count\{operation="Timed",outcome="ok"\} 1$/m);
    expect(text).toMatch(/^graphql_operation_duration_seconds_count\{operation="TimedBadly",outcome="error"\} 1$/m);
    expect(text).toMatch(/^graphql_operation_duration_seconds_bucket\{le="\+Inf",operation="Timed",outcome="ok"\} 1$/m);
    // Its outcome is ok or error only: the codes are on graphql_operations_total.
    const outcomes = new Set([...text.matchAll(/^graphql_operation_duration_seconds_count\{[^}]*outcome="([^"]+)"/gm)].map((match) => match[1]));
    expect([...outcomes].every((outcome) => outcome === 'ok' || outcome === 'error')).toBe(true);
  });
});

describe('/metrics kept from the public port', () => {
  it('METRICS_PORT: served on its own port, and 404 on the gateway\'s', async () => {
    const gateway = await startGatewayOn(stack.proxy.url, { METRICS_PORT: '0' });
    try {
      expect(gateway.gateway.metricsPort).toBeGreaterThan(0);
      expect(gateway.gateway.metricsPort).not.toBe(gateway.gateway.port);
      const publicPort = await fetch(`${origin(gateway.gateway.url)}/metrics`);
      expect(publicPort.status).toBe(404);
      const own = await fetch(`http://127.0.0.1:${gateway.gateway.metricsPort}/metrics`);
      expect(own.status).toBe(200);
      expect(await own.text()).toContain('graphql_operations_total');
      expect((await fetch(`http://127.0.0.1:${gateway.gateway.metricsPort}/graphql`)).status).toBe(404);
      // The gateway's other endpoints stay where they were.
      expect((await fetch(`${origin(gateway.gateway.url)}/healthz`)).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('METRICS_TOKEN: 401 without the bearer token or with another, 200 with it', async () => {
    const token = 'scrape-token-0123456789abcdef';
    const gateway = await startGatewayOn(stack.proxy.url, { METRICS_TOKEN: token });
    const url = `${origin(gateway.gateway.url)}/metrics`;
    try {
      const none = await fetch(url);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toContain('Bearer');
      expect(await none.text()).not.toContain(token);
      expect((await fetch(url, { headers: { authorization: 'Bearer not-the-token-at-all' } })).status).toBe(401);
      const good = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(good.status).toBe(200);
      expect(await good.text()).toContain('build_info');
    } finally {
      await gateway.close();
    }
  });

  it('refuses a weak token or a METRICS_PORT that is PORT, in one line that does not echo the token', () => {
    expect(() => parseGatewayConfig({ METRICS_TOKEN: 'short' })).toThrow('METRICS_TOKEN: expected at least 16 characters without spaces');
    expect(() => parseGatewayConfig({ PORT: '4000', METRICS_PORT: '4000' })).toThrow('METRICS_PORT: 4000 is PORT');
    expect(parseGatewayConfig({})).toMatchObject({ metricsPort: undefined, metricsToken: undefined });
  });
});
