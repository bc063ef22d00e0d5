// What the operator sees: one JSON log line per GraphQL request (with the upstream calls, never
// the key) and Prometheus metrics at /metrics, for a gateway spoken to over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../../src/gateway/observability/metrics.ts';
import { startFaultUpstream, json, sequence } from '../../helpers/fault-upstream.ts';
import { postGraphQL, startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';

const KEY = TEST_KEYS.admin;
const FRAMEWORKS_ROUTE = 'GET /api/v1/organizations/{organizationid}/security-frameworks';

function metricsUrl(stack: Stack): string {
  return new URL('/metrics', stack.gateway.url).href;
}

describe('observability', () => {
  let stack: Stack;
  const records = () => stack.logs.map((line) => JSON.parse(line) as Record<string, any>);
  const lineOf = (requestId: string) => records().find((line) => line.requestId === requestId && line.msg === 'graphql request');

  beforeAll(async () => {
    stack = await startStack({ v1: { seed: 'none' }, key: KEY });
    const frameworks = 'query Frameworks { securityFrameworks(organizationId: 1) { totalCount } }';
    await postGraphQL(stack.gateway.url, { query: frameworks }, { 'x-service-token': KEY, 'x-request-id': 'obs-token' });
    await postGraphQL(stack.gateway.url, { query: frameworks }, { authorization: `Bearer ${KEY}`, 'x-request-id': 'obs-bearer' });
    await postGraphQL(
      stack.gateway.url,
      { query: 'query Costly { protectionDevices(first: 100) { nodes { traffic(first: 100) { nodes { id } } } } }' },
      { 'x-service-token': KEY, 'x-request-id': 'obs-costly' },
    );
    await postGraphQL(
      stack.gateway.url,
      { query: 'query BadId { securityFrameworks(organizationId: "not-an-id") { totalCount } }' },
      { 'x-service-token': KEY, 'x-request-id': 'obs-bad-id' },
    );
  });
  afterAll(() => stack?.close());

  it('logs one line per request with its id, operation, outcome, duration and upstream calls', () => {
    const line = lineOf('obs-token');
    expect(line).toMatchObject({
      level: 'info',
      service: 'gateway',
      operation: 'Frameworks',
      operationType: 'query',
      outcome: 'ok',
      errors: [],
      status: 200,
      upstreamCalls: 1,
      upstream: [{ route: FRAMEWORKS_ROUTE, status: 200, outcome: 'ok', attempt: 1 }],
    });
    // A level name and an ISO time, as log shippers read them.
    expect(line?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(line!.durationMs).toBeGreaterThan(0);
    expect(line!.upstream[0].durationMs).toBeGreaterThanOrEqual(0);
    expect(line!.durationMs).toBeGreaterThanOrEqual(line!.upstream[0].durationMs);
    expect(records().filter((record) => record.requestId === 'obs-token')).toHaveLength(1);
    expect(lineOf('obs-bearer')).toMatchObject({ operation: 'Frameworks', outcome: 'ok', upstreamCalls: 1 });
  });

  it('logs the error codes of a refused or failed operation', () => {
    expect(lineOf('obs-costly')).toMatchObject({
      operation: 'Costly',
      outcome: 'error',
      errors: ['QUERY_TOO_COMPLEX'],
      status: 400,
      upstreamCalls: 0,
      upstream: [],
    });
    expect(lineOf('obs-bad-id')).toMatchObject({ operation: 'BadId', outcome: 'error', errors: ['BAD_USER_INPUT'], upstreamCalls: 0 });
  });

  it('never writes the key, even when a header object is logged by mistake', () => {
    stack.gateway.logger.info({ req: { headers: { 'x-service-token': KEY, authorization: `Bearer ${KEY}` } }, apiKey: KEY }, 'careless');
    const careless = records().find((record) => record.msg === 'careless');
    expect(careless).toMatchObject({
      req: { headers: { 'x-service-token': '[redacted]', authorization: '[redacted]' } },
      apiKey: '[redacted]',
    });
    expect(stack.logs.length).toBeGreaterThanOrEqual(5);
    for (const line of stack.logs) expect(line).not.toContain(KEY);
  });

  it('serves the counters, the upstream histogram and the process metrics at /metrics', async () => {
    const response = await fetch(metricsUrl(stack));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toContain('graphql_operations_total{operation="Frameworks",outcome="ok"} 2');
    expect(text).toContain('graphql_operations_total{operation="Costly",outcome="QUERY_TOO_COMPLEX"} 1');
    expect(text).toContain('graphql_operations_total{operation="BadId",outcome="BAD_USER_INPUT"} 1');
    expect(text).toContain(`upstream_request_duration_seconds_count{route="${FRAMEWORKS_ROUTE}",status="200"} 2`);
    expect(text).toContain('# TYPE upstream_retries_total counter');
    expect(text).toContain(`upstream_circuit_state{upstream="graphql"} 0`);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).not.toContain(KEY);
  });

  it('keeps the metrics of each gateway apart', async () => {
    const other = await startStack({ v1: { seed: 'none' }, key: KEY });
    try {
      await postGraphQL(other.gateway.url, { query: 'query Elsewhere { securityFrameworks(organizationId: 2) { totalCount } }' }, { 'x-service-token': KEY });
      const text = await (await fetch(metricsUrl(other))).text();
      expect(text).toContain('graphql_operations_total{operation="Elsewhere",outcome="ok"} 1');
      expect(text).not.toContain('operation="Frameworks"');
    } finally {
      await other.close();
    }
  });
});

describe('observability of a retried call', () => {
  it('logs each attempt and counts the retry', async () => {
    const fault = await startFaultUpstream(
      // The first two answers go to the gateway's looks at the upstream as it starts (does it answer,
      // does it read web protection records).
      sequence(json(401, { error: 1, messages: [] }), json(401, { error: 1, messages: [] }), json(503, { error: 1, messages: ['busy'] }), json(200, { error: 0, messages: [], total: 0, data: [] })),
    );
    const stack = await startStack({ v1: { seed: 'none' }, key: KEY, upstreamUrl: fault.url });
    try {
      const response = await postGraphQL<any>(
        stack.gateway.url,
        { query: 'query Retried { securityFrameworks(organizationId: 1) { totalCount } }' },
        { 'x-service-token': KEY, 'x-request-id': 'obs-retried' },
      );
      expect(response.errors).toBeUndefined();
      expect(response.data).toEqual({ securityFrameworks: { totalCount: 0 } });
      const line = stack.logs.map((text) => JSON.parse(text)).find((record) => record.requestId === 'obs-retried');
      expect(line).toMatchObject({
        outcome: 'ok',
        upstreamCalls: 2,
        upstream: [
          { route: FRAMEWORKS_ROUTE, status: 503, outcome: 'UPSTREAM_UNAVAILABLE', attempt: 1 },
          { route: FRAMEWORKS_ROUTE, status: 200, outcome: 'ok', attempt: 2 },
        ],
      });
      const text = await (await fetch(metricsUrl(stack))).text();
      expect(text).toContain(`upstream_retries_total{route="${FRAMEWORKS_ROUTE}"} 1`);
      expect(text).toContain(`upstream_request_duration_seconds_count{route="${FRAMEWORKS_ROUTE}",status="503"} 1`);
      expect(text).toContain(`upstream_request_duration_seconds_count{route="${FRAMEWORKS_ROUTE}",status="200"} 1`);
      expect(stack.logs.join('\n')).not.toContain(KEY);
    } finally {
      await stack.close();
      await fault.close();
    }
  });
});

describe('GatewayMetrics', () => {
  it('bounds the operation label and sets the circuit gauge', async () => {
    const metrics = new GatewayMetrics();
    metrics.countOperation(null, 'ok');
    metrics.countOperation('not a name!', 'ok');
    metrics.countOperation('Fine', 'weird outcome');
    metrics.setCircuitState('v1', 'open');
    metrics.countRetry('GET /api/v1/atb');
    const text = await metrics.render();
    expect(text).toContain('graphql_operations_total{operation="anonymous",outcome="ok"} 1');
    expect(text).toContain('graphql_operations_total{operation="invalid",outcome="ok"} 1');
    expect(text).toContain('graphql_operations_total{operation="Fine",outcome="OTHER"} 1');
    expect(text).toContain('upstream_circuit_state{upstream="v1"} 2');
    expect(text).toContain('upstream_retries_total{route="GET /api/v1/atb"} 1');
  });
});
