// Tracing, end to end: the gateway exports its spans over OTLP/HTTP to a real receiver (a server in
// this test that decodes them), a span per operation continuing the client's W3C traceparent, a
// child span per upstream attempt whose traceparent is the one the upstream received (seen at the
// counting proxy), and nothing of a key, a token or a variable's value in what is exported.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { postGraphQL, startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../helpers/otlp-receiver.ts';

const FAN_OUT = `query DeviceTraffic($search: String) {
  protectionDevices(first: 2) { nodes { id traffic(first: 3, filter: { search: $search }) { totalCount } } }
}`;
const SECRET_SEARCH = 'needle-9f3c1e';

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

function send(stack: Stack, query: string, headers: Record<string, string> = {}, variables: Record<string, unknown> = {}) {
  return postGraphQL<Record<string, unknown>>(stack.gateway.url, { query, variables }, { 'x-service-token': TEST_KEYS.admin, ...headers });
}

describe('tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('is not configured and sends no traceparent upstream', async () => {
    expect(parseGatewayConfig({}).tracing).toBeUndefined();
    expect(parseGatewayConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
    const stack = await startStack({ key: TEST_KEYS.admin });
    try {
      const response = await send(stack, FAN_OUT, { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` });
      expect(response.errors).toBeUndefined();
      expect(stack.proxy.calls.length).toBeGreaterThan(0);
      for (const call of stack.proxy.calls) expect(call.headers).not.toHaveProperty('traceparent');
    } finally {
      await stack.close();
    }
  });

  it('refuses a bad setting with one line naming it', () => {
    expect(() => parseGatewayConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/^OTEL_EXPORTER_OTLP_ENDPOINT: expected an http\(s\) URL/);
    expect(() => parseGatewayConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/^OTEL_EXPORTER_OTLP_PROTOCOL: /);
    expect(parseGatewayConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }).tracing?.tracesUrl).toBe('http://c:4318/v1/traces');
    expect(parseGatewayConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom' }).tracing?.tracesUrl).toBe('http://c:4318/custom');
  });
});

describe('tracing on (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let stack: Stack;
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const config = parseGatewayConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' });
    stack = await startStack({ gateway: { tracing: config.tracing, upstreamRetries: 2 }, key: TEST_KEYS.admin });
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  const inTrace = (traceId: string) => (span: ReceivedSpan) => span.traceId === traceId;

  it('continues the client’s traceparent: an operation span, and a child span per upstream call whose traceparent the upstream got', async () => {
    stack.proxy.reset();
    const response = await send(stack, FAN_OUT, { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` }, { search: SECRET_SEARCH });
    expect(response.errors).toBeUndefined();
    const calls = stack.proxy.calls;
    expect(calls).toHaveLength(3);
    const spans = await receiver.waitFor(4, inTrace(CLIENT_TRACE));
    const operation = spans.find((span) => span.kind === 2)!;
    expect(operation).toMatchObject({
      name: 'query DeviceTraffic',
      parentSpanId: CLIENT_SPAN,
      service: 'security-graphql-gateway',
      attributes: {
        'graphql.operation.name': 'DeviceTraffic',
        'graphql.operation.type': 'query',
        'gateway.outcome': 'ok',
        'gateway.cost.upstream_calls': 3,
        'gateway.cost.estimated': expect.any(Number),
        'http.response.status_code': 200,
      },
    });
    const upstream = spans.filter((span) => span.kind === 3);
    expect(upstream.map((span) => span.name).sort()).toEqual(['GET /api/v1/atb', 'GET /api/v1/atb/{id}/traffic', 'GET /api/v1/atb/{id}/traffic']);
    for (const span of upstream) {
      expect(span.parentSpanId).toBe(operation.spanId);
      expect(span.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200, 'http.request.resend_count': 0, 'gateway.upstream.outcome': 'ok' });
      expect(String(span.attributes['url.template'])).toMatch(/^\/api\/v1\/atb/);
    }
    // Each upstream request carried its own span's traceparent.
    expect(calls.map((call) => call.headers.traceparent).sort()).toEqual(upstream.map((span) => `00-${CLIENT_TRACE}-${span.spanId}-01`).sort());
  });

  it('starts a trace of its own without a traceparent, and a span per attempt of a retried call', async () => {
    stack.proxy.reset();
    let failed = 0;
    stack.proxy.fail(() => (failed++ === 0 ? 503 : undefined));
    const response = await send(stack, '{ protectionDevices(first: 1) { totalCount } }');
    stack.proxy.fail(() => undefined);
    expect(response.errors).toBeUndefined();
    const traceId = /^00-([0-9a-f]{32})-/.exec(String(stack.proxy.calls[0]!.headers.traceparent))![1]!;
    expect(traceId).not.toBe(CLIENT_TRACE);
    const spans = await receiver.waitFor(3, inTrace(traceId));
    const operation = spans.find((span) => span.kind === 2)!;
    expect(operation.parentSpanId).toBeUndefined();
    const attempts = spans.filter((span) => span.kind === 3).sort((a, b) => Number(a.attributes['http.request.resend_count']) - Number(b.attributes['http.request.resend_count']));
    expect(attempts.map((span) => [span.attributes['http.request.resend_count'], span.attributes['http.response.status_code'], span.attributes['gateway.upstream.outcome']])).toEqual([
      [0, 503, 'UPSTREAM_UNAVAILABLE'],
      [1, 200, 'ok'],
    ]);
    expect(attempts[0]!.status.code).toBe(2); // ERROR
    expect(stack.proxy.calls.map((call) => call.headers.traceparent)).toEqual(attempts.map((span) => `00-${traceId}-${span.spanId}-01`));
  });

  it('follows a client’s decision not to sample: no span, and the unsampled traceparent upstream', async () => {
    stack.proxy.reset();
    const unsampled = '2'.repeat(32);
    const response = await send(stack, FAN_OUT, { traceparent: `00-${unsampled}-${CLIENT_SPAN}-00` });
    expect(response.errors).toBeUndefined();
    expect(stack.proxy.calls).toHaveLength(3);
    for (const call of stack.proxy.calls) expect(call.headers.traceparent).toMatch(new RegExp(`^00-${unsampled}-[0-9a-f]{16}-00$`));
    // A sampled request after it is exported (the exporter works), the unsampled one never was.
    await send(stack, FAN_OUT, { traceparent: `00-${'3'.repeat(32)}-${CLIENT_SPAN}-01` });
    await receiver.waitFor(1, inTrace('3'.repeat(32)));
    expect(receiver.spans.filter(inTrace(unsampled))).toEqual([]);
  });

  it('gives a failed or refused operation its code as its outcome', async () => {
    const response = await postGraphQL(stack.gateway.url, { query: FAN_OUT }, { traceparent: `00-${'1'.repeat(32)}-${CLIENT_SPAN}-01` });
    expect(response.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const [operation] = await receiver.waitFor(1, (span) => span.traceId === '1'.repeat(32));
    expect(operation!.attributes).toMatchObject({ 'gateway.outcome': 'UNAUTHENTICATED', 'gateway.error_codes': ['UNAUTHENTICATED'] });
    expect(operation!.status.code).toBe(2);
  });

  it('exports no key, token or variable value', async () => {
    await receiver.waitFor(1);
    const exported = receiver.bodies.join('\n');
    for (const key of stack.keys()) expect(exported).not.toContain(key);
    expect(exported).not.toContain(SECRET_SEARCH);
    expect(exported).not.toContain('x-service-token');
  });
});
