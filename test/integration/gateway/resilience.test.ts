// How the gateway holds when its upstream misbehaves for a while, through GraphQL over HTTP:
// retries with backoff and Retry-After, the retry budget under a sustained outage, the circuit
// breaker (fail fast, /readyz, /metrics, probe and close), the operation deadline, the body cap.
// Every block has its own fault upstream, hence its own origin: its own breaker and budget.
import { afterEach, describe, expect, it } from 'vitest';
import { FrameworkDocument, FrameworkInTwoOrganizationsDocument } from '../../generated/operations.ts';
import { ConfigError, parseGatewayConfig } from '../../../src/gateway/config.ts';
import { DEFAULT_RETRY_BUDGET } from '../../../src/gateway/upstream/retry.ts';
import { startGatewayOn, type GatewayOn } from '../../helpers/gateway.ts';
import {
  byPath,
  envelopeError,
  json,
  rateLimited,
  resetBeforeHeaders,
  sequence,
  slow,
  startFaultUpstream,
  type FaultUpstream,
} from '../../helpers/fault-upstream.ts';

const KEY = 'k3y-Resilience-0d4b';
const ORG_ONE = '/api/v1/organizations/1/security-frameworks';
const ORG_TWO = '/api/v1/organizations/2/security-frameworks';
const framework = { id: 5, title: 'ISO 27001', security_frameworks: [] };
const healthy = json(200, { error: 0, messages: [], total: 1, data: [framework] });
const unavailable = envelopeError(503, [{ code: 'maintenance', message: 'Back soon' }]);
const found = { securityFramework: { id: '5', title: 'ISO 27001', controls: [] } };
const ROUTE = 'GET /api/v1/organizations/{organizationid}/security-frameworks';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  // Gateways first: they hold connections to the upstreams.
  for (const item of open.splice(0).reverse()) await item.close();
});

async function setUp(env: Record<string, string> = {}): Promise<{ fault: FaultUpstream; gw: GatewayOn }> {
  const fault = await startFaultUpstream(healthy);
  open.push(fault);
  const gw = await startGatewayOn(fault.url, env);
  open.push(gw);
  // The start's look at the upstream is not one of the calls a case counts.
  fault.calls.length = 0;
  return { fault, gw };
}

function lookup(gw: GatewayOn) {
  return gw.query(FrameworkDocument, { organizationId: '1', id: '5' }, KEY);
}

/** The value of one series of /metrics, or undefined when it is not there. */
async function metric(gw: GatewayOn, series: string): Promise<number | undefined> {
  const text = await (await gw.get('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('retries', () => {
  it('a GET is retried with backoff until it succeeds, and the retries are counted', async () => {
    const { fault, gw } = await setUp();
    fault.setBehaviour(sequence(unavailable, resetBeforeHeaders, healthy));
    const response = await lookup(gw);
    expect(response.errors).toBeUndefined();
    expect(response.data).toEqual(found);
    expect(fault.callsTo(ORG_ONE)).toHaveLength(3);
    expect(await metric(gw, `upstream_retries_total{route="${ROUTE}"}`)).toBe(2);
    const line = gw.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'graphql request');
    expect(line?.upstreamCalls).toBe(3);
  });

  it('Retry-After is honoured: the retry waits at least that long', async () => {
    const { fault, gw } = await setUp();
    fault.setBehaviour(sequence(rateLimited(1), healthy));
    const response = await lookup(gw);
    expect(response.data).toEqual(found);
    const [first, second] = fault.callsTo(ORG_ONE).map((call) => call.receivedAt);
    expect(second! - first!).toBeGreaterThanOrEqual(990);
  });

  it('UPSTREAM_RETRIES=0 turns retries off', async () => {
    const { fault, gw } = await setUp({ UPSTREAM_RETRIES: '0' });
    fault.setBehaviour(unavailable);
    const response = await lookup(gw);
    expect(response.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(fault.calls).toHaveLength(1);
  });

  it('under a sustained outage the retry budget keeps the attempts near the operations, not 3×', async () => {
    // The breaker is off here, so that only the budget limits the retries.
    const { fault, gw } = await setUp({ UPSTREAM_CIRCUIT_FAILURES: '0' });
    fault.setBehaviour(unavailable);
    const operations = 100;
    const started = performance.now();
    let next = 0;
    const codes: unknown[] = [];
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < operations) {
          next += 1;
          const response = await lookup(gw);
          codes.push(response.errors?.[0]?.extensions?.code);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    expect(codes).toEqual(Array.from({ length: operations }, () => 'UPSTREAM_UNAVAILABLE'));
    const { ratio, perSecond, max } = DEFAULT_RETRY_BUDGET;
    const attempts = fault.calls.length;
    // Without a budget: 300 attempts. With it: one per operation, plus the starting reserve, plus
    // `ratio` of the operations, plus the floor earned while the test ran.
    expect(attempts).toBeGreaterThanOrEqual(operations + max);
    expect(attempts).toBeLessThanOrEqual(operations + max + Math.ceil(ratio * operations + perSecond * seconds) + 1);
    expect(attempts).toBeLessThan(2 * operations);
  });
});

describe('circuit breaker', () => {
  it('opens after N failures, fails fast without calling, shows in /readyz and /metrics, probes and closes', async () => {
    const { fault, gw } = await setUp({ UPSTREAM_CIRCUIT_FAILURES: '3', UPSTREAM_CIRCUIT_COOLDOWN_MS: '400' });
    const gauge = `upstream_circuit_state{upstream="graphql"}`;
    expect(await metric(gw, gauge)).toBe(0);

    // One read, three attempts: three failures in a row open the circuit.
    fault.setBehaviour(unavailable);
    const failed = await lookup(gw);
    expect(failed.errors?.map((e) => e.extensions)).toEqual([
      { code: 'UPSTREAM_UNAVAILABLE', upstream: { status: 503, error: 1, messages: [{ code: 'maintenance', message: 'Back soon' }] } },
    ]);
    expect(fault.calls).toHaveLength(3);
    expect(await metric(gw, gauge)).toBe(2);

    // Open: no upstream call, whatever the upstream would now say.
    fault.setBehaviour(healthy);
    fault.calls.length = 0;
    const fast = await lookup(gw);
    expect(fast.data).toEqual({ securityFramework: null });
    expect(fast.errors).toEqual([
      {
        message: expect.stringMatching(/^The upstream service is unavailable\b/),
        locations: [{ line: expect.any(Number), column: expect.any(Number) }],
        path: ['securityFramework'],
        extensions: { code: 'UPSTREAM_UNAVAILABLE' },
      },
    ]);
    const readyWhileOpen = await gw.get('/readyz');
    expect(readyWhileOpen.status).toBe(503);
    expect(await readyWhileOpen.json()).toEqual({ status: 'unavailable', reason: expect.any(String) });
    expect(fault.calls).toHaveLength(0);

    // After the cool-down: half-open, /readyz asks the upstream again, one probe closes the circuit.
    await sleep(500);
    expect(await metric(gw, gauge)).toBe(1);
    expect((await gw.get('/readyz')).status).toBe(200);
    fault.calls.length = 0;
    const probe = await lookup(gw);
    expect(probe.errors).toBeUndefined();
    expect(probe.data).toEqual(found);
    expect(fault.callsTo(ORG_ONE)).toHaveLength(1);
    expect(await metric(gw, gauge)).toBe(0);
    const after = await lookup(gw);
    expect(after.data).toEqual(found);
  });

  it('a failed probe opens the circuit for another cool-down', async () => {
    const { fault, gw } = await setUp({ UPSTREAM_CIRCUIT_FAILURES: '2', UPSTREAM_CIRCUIT_COOLDOWN_MS: '300', UPSTREAM_RETRIES: '0' });
    fault.setBehaviour(unavailable);
    await lookup(gw);
    await lookup(gw);
    expect((await gw.get('/readyz')).status).toBe(503);
    await sleep(400);
    fault.calls.length = 0;
    const probe = await lookup(gw);
    expect(probe.errors?.[0]?.extensions?.upstream).toEqual({ status: 503, error: 1, messages: [{ code: 'maintenance', message: 'Back soon' }] });
    expect(fault.calls).toHaveLength(1);
    expect((await gw.get('/readyz')).status).toBe(503);
    await lookup(gw);
    expect(fault.calls).toHaveLength(1);
  });

  it('4xx answers and envelope errors never open it', async () => {
    const { fault, gw } = await setUp({ UPSTREAM_CIRCUIT_FAILURES: '2' });
    fault.setBehaviour(sequence(envelopeError(409), envelopeError(200), rateLimited(600), envelopeError(409), healthy));
    for (let i = 0; i < 4; i++) expect((await lookup(gw)).errors).toHaveLength(1);
    expect((await lookup(gw)).data).toEqual(found);
    expect(fault.calls).toHaveLength(5);
    expect((await gw.get('/readyz')).status).toBe(200);
  });
});

describe('deadlines and the body cap', () => {
  it('the operation deadline fails the slow field with UPSTREAM_TIMEOUT and keeps the rest', async () => {
    const { fault, gw } = await setUp({ UPSTREAM_TIMEOUT_MS: '10000', OPERATION_TIMEOUT_MS: '300' });
    fault.setBehaviour(byPath({ [ORG_TWO]: slow(4_000, healthy) }, healthy));
    const started = performance.now();
    const response = await gw.query(FrameworkInTwoOrganizationsDocument, { one: '1', two: '2', id: '5' }, KEY);
    expect(performance.now() - started).toBeLessThan(3_000); // long before the slow answer
    expect(response.data).toEqual({ a: { id: '5', title: 'ISO 27001' }, b: null });
    expect(response.errors?.map((e) => [e.path, e.extensions])).toEqual([[['b'], { code: 'UPSTREAM_TIMEOUT' }]]);
    // A timeout is not retried: one call.
    expect(fault.callsTo(ORG_TWO)).toHaveLength(1);

    // The deadline is per operation: the next one has its own.
    fault.setBehaviour(healthy);
    const next = await gw.query(FrameworkInTwoOrganizationsDocument, { one: '1', two: '2', id: '5' }, KEY);
    expect(next.data).toEqual({ a: { id: '5', title: 'ISO 27001' }, b: { id: '5', title: 'ISO 27001' } });
  });

  it('UPSTREAM_MAX_BODY_BYTES caps the body of an upstream answer', async () => {
    const { fault, gw } = await setUp({ UPSTREAM_MAX_BODY_BYTES: '2048' });
    const large = { ...framework, title: 'x'.repeat(3_000) };
    fault.setBehaviour(byPath({ [ORG_TWO]: json(200, { error: 0, messages: [], total: 1, data: [large] }) }, healthy));
    const response = await gw.query(FrameworkInTwoOrganizationsDocument, { one: '1', two: '2', id: '5' }, KEY);
    expect(response.data).toEqual({ a: { id: '5', title: 'ISO 27001' }, b: null });
    expect(response.errors?.map((e) => [e.path, e.message, e.extensions])).toEqual([
      [
        ['b'],
        'The upstream service sent a response that breaks the v1 contract: body: over the 2048-byte limit',
        { code: 'UPSTREAM_BAD_RESPONSE', upstream: { status: 200, error: null, messages: [] } },
      ],
    ]);
  });

  it('the settings: defaults, and a bad value is a one-line ConfigError naming it', () => {
    expect(parseGatewayConfig({})).toMatchObject({
      upstreamTimeoutMs: 10_000,
      operationTimeoutMs: 15_000,
      upstreamRetries: 2,
      upstreamCircuitFailures: 5,
      upstreamCircuitCooldownMs: 5_000,
      upstreamMaxBodyBytes: 8 * 1024 * 1024,
    });
    for (const [name, value] of [
      ['OPERATION_TIMEOUT_MS', '0'],
      ['UPSTREAM_RETRIES', '11'],
      ['UPSTREAM_CIRCUIT_FAILURES', '-1'],
      ['UPSTREAM_CIRCUIT_COOLDOWN_MS', 'soon'],
      ['UPSTREAM_MAX_BODY_BYTES', '12'],
    ] as const) {
      let error: unknown;
      try {
        parseGatewayConfig({ [name]: value });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(new RegExp(`^${name}: expected an integer from \\d+ to \\d+, got "?${value}"?$`));
    }
  });
});
