// An operator can tell upstream failures apart: each failed call's log line says why (connection
// refused, name not resolved, TLS, reset, timeout), and a gateway whose UPSTREAM_URL does not
// answer says so once, at start, and serves anyway. Clients learn only the code.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refusedUrl, resetBeforeHeaders, slow, startFaultUpstream, json, type FaultUpstream } from '../../helpers/fault-upstream.ts';
import { postGraphQL, startGatewayOn, type GatewayOn } from '../../helpers/gateway.ts';

const KEY = 'diagnosis-key-1234';
const QUERY = { query: '{ protectionDevices(first: 1) { totalCount } }' };
const opened: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((thing) => thing.close()));
});

async function gatewayOn(url: string, env: Record<string, string> = {}): Promise<GatewayOn> {
  const gateway = await startGatewayOn(url, { UPSTREAM_RETRIES: '0', ...env });
  opened.push(gateway);
  return gateway;
}

/** The causes the request lines of the log give for the upstream calls. */
function causes(gateway: GatewayOn): string[] {
  return gateway.logs.flatMap((line) => {
    const entry = JSON.parse(line) as { msg: string; upstream?: { cause?: string }[] };
    return entry.msg === 'graphql request' ? (entry.upstream ?? []).map((call) => call.cause ?? 'none') : [];
  });
}

async function warnedAtStart(gateway: GatewayOn): Promise<string[]> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  return gateway.logs.filter((line) => line.includes('does not answer')).map((line) => (JSON.parse(line) as { cause: string }).cause);
}

describe('why an upstream call failed, in the log line', () => {
  it('connection refused; and said once at start, while the gateway serves', async () => {
    const gateway = await gatewayOn(await refusedUrl());
    expect(await warnedAtStart(gateway)).toEqual(['connection refused']);
    const response = await postGraphQL(gateway.gateway.url, QUERY, { 'x-service-token': KEY });
    expect(response.errors?.[0]?.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(causes(gateway)).toEqual(['connection refused']);
    expect(JSON.stringify(response)).not.toContain('refused');
  });

  it('name not resolved', async () => {
    const gateway = await gatewayOn('http://no-such-host.invalid');
    const response = await postGraphQL(gateway.gateway.url, QUERY, { 'x-service-token': KEY });
    expect(response.errors?.[0]?.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(causes(gateway)).toEqual(['name not resolved']);
  });

  it('TLS: an https URL to a server that does not speak it is UPSTREAM_UNAVAILABLE, not a masked bug', async () => {
    const plain = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    opened.push({ close: () => new Promise<void>((resolve) => plain.close(() => resolve())) });
    const gateway = await gatewayOn(`https://127.0.0.1:${(plain.address() as AddressInfo).port}`);
    expect(await warnedAtStart(gateway)).toEqual(['TLS']);
    const response = await postGraphQL(gateway.gateway.url, QUERY, { 'x-service-token': KEY });
    expect(response.errors?.[0]?.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(causes(gateway)).toEqual(['TLS']);
    expect(gateway.logs.filter((line) => line.includes('"level":"error"'))).toEqual([]);
  });

  it('a reset, and a timeout', async () => {
    const upstream: FaultUpstream = await startFaultUpstream();
    opened.push(upstream);
    const gateway = await gatewayOn(upstream.url, { UPSTREAM_TIMEOUT_MS: '200' });
    upstream.setBehaviour(resetBeforeHeaders);
    await postGraphQL(gateway.gateway.url, QUERY, { 'x-service-token': KEY });
    upstream.setBehaviour(slow(1_000, json(200, { error: 0, messages: [], total: 0, data: [] })));
    await postGraphQL(gateway.gateway.url, QUERY, { 'x-service-token': KEY });
    expect(causes(gateway)).toEqual(['connection reset', 'timeout']);
  });

  it('an upstream that answers: no warning at start', async () => {
    const upstream = await startFaultUpstream();
    opened.push(upstream);
    upstream.setBehaviour(json(401, { error: 1, messages: [] }));
    const gateway = await gatewayOn(upstream.url);
    expect(await warnedAtStart(gateway)).toEqual([]);
  });
});
