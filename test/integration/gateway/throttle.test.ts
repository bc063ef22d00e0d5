// Throttling by cost, over HTTP against the reference service, with upstream calls counted where
// they land: the estimate is reserved before an operation runs, a refusal makes no upstream call,
// the bucket is charged what the operation actually spent, and each key has its own bucket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { postGraphQL, startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';

// Estimated 1 + 5 × 1 = 6 calls: the page, and each device's traffic.
const SIX_CALLS = '{ protectionDevices(first: 5) { nodes { id traffic(first: 1) { totalCount } } } }';
// Estimated 2 calls; the same page twice is fetched once: it spends 1.
const TWICE_THE_SAME = '{ a: protectionDevices(first: 3) { totalCount } b: protectionDevices(first: 3) { totalCount } }';

let stack: Stack;

async function send(query: string, key: string = TEST_KEYS.admin) {
  return postGraphQL<Record<string, unknown>>(stack.gateway.url, { query }, { 'x-service-token': key });
}

const throttleOf = (response: { text: string }) => (JSON.parse(response.text) as { extensions?: { cost?: { throttle?: unknown } } }).extensions?.cost?.throttle;

describe('throttling off (the default)', () => {
  it('has no bucket in extensions.cost', async () => {
    const off = await startStack({ key: TEST_KEYS.admin });
    try {
      const response = await postGraphQL(off.gateway.url, { query: SIX_CALLS }, { 'x-service-token': TEST_KEYS.admin });
      expect(response.status).toBe(200);
      expect(JSON.parse(response.text).extensions.cost).toEqual({ estimated: expect.any(Number), upstreamCalls: 6 });
    } finally {
      await off.close();
    }
  });
});

// The bucket restores 1 call a second, and what a busy machine adds between two requests is
// measured, not assumed: each figure is checked against what can have been restored in the time
// the client saw pass, so the checks are exact on an idle machine and still hold on a loaded one.
const RESTORE_PER_S = 1;

/** Sends and returns the answer with the time it took, as the client measured it. */
async function timedSend(query: string, key: string = TEST_KEYS.admin) {
  const started = performance.now();
  const response = await send(query, key);
  return { response, ms: performance.now() - started };
}

/** Calls restored within `ms` at most. */
const restoredWithin = (ms: number) => Math.floor((ms / 1000) * RESTORE_PER_S);

describe(`throttling by cost (RATE_LIMIT_CALLS=10, RATE_LIMIT_RESTORE_PER_S=${RESTORE_PER_S})`, () => {
  beforeAll(async () => {
    const config = parseGatewayConfig({ RATE_LIMIT_CALLS: '10', RATE_LIMIT_RESTORE_PER_S: String(RESTORE_PER_S) });
    stack = await startStack({ gateway: { rateLimit: config.rateLimit }, key: TEST_KEYS.admin });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('charges what an operation spent, refuses the next one whose estimate is over what is left before any upstream call, and restores over time', async () => {
    const first = await timedSend(SIX_CALLS);
    expect(first.response.status).toBe(200);
    expect(first.response.errors).toBeUndefined();
    // 10 less the 6 it spent, and what was restored while it ran.
    const afterFirst = throttleOf(first.response) as { remaining: number };
    expect(afterFirst).toMatchObject({ limit: 10, restorePerSecond: RESTORE_PER_S });
    expect(afterFirst.remaining).toBeGreaterThanOrEqual(4);
    expect(afterFirst.remaining).toBeLessThanOrEqual(4 + restoredWithin(first.ms));

    // The same again until one is refused: at most 2 more, whatever the machine's pace, since
    // each spends 6 and a second restores 1.
    let refused = first.response;
    for (let sent = 0; sent < 3 && refused.status === 200; sent++) {
      stack.proxy.reset();
      refused = (await timedSend(SIX_CALLS)).response;
    }
    expect(refused.status).toBe(429);
    expect(refused.data).toBeUndefined();
    const error = refused.errors![0]!;
    const left = (throttleOf(refused) as { remaining: number }).remaining;
    expect(left).toBeLessThan(6);
    expect(throttleOf(refused)).toEqual({ limit: 10, remaining: left, restorePerSecond: RESTORE_PER_S });
    expect(error.extensions?.code).toBe('RATE_LIMITED');
    // When enough will have been restored: the calls missing, at the restore rate.
    const retryAfter = Math.ceil((6 - left) / RESTORE_PER_S);
    expect(error.extensions?.retryAfter).toBe(retryAfter);
    expect(refused.headers.get('retry-after')).toBe(String(retryAfter));
    expect(error.message).toMatch(new RegExp(`needs an estimated 6 upstream calls and this key has ${left} left`));
    expect(stack.proxy.calls).toEqual([]);

    // Retried when the refusal said: restored, and answered.
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
    const later = await send(SIX_CALLS);
    expect(later.status).toBe(200);
    expect(throttleOf(later)).toMatchObject({ limit: 10 });
  });

  it('gives each key a bucket of its own', async () => {
    // The admin key's bucket is nearly spent by the case above; the organization key's is full.
    const other = await timedSend(TWICE_THE_SAME, TEST_KEYS.org1);
    expect(other.response.status).toBe(200);
    // Estimated 2, spent 1: the bucket loses what was spent (10 at most: a full bucket restores nothing).
    expect(JSON.parse(other.response.text).extensions.cost.upstreamCalls).toBe(1);
    const bucket = throttleOf(other.response) as { remaining: number };
    expect(bucket).toMatchObject({ limit: 10, restorePerSecond: RESTORE_PER_S });
    expect(bucket.remaining).toBeGreaterThanOrEqual(9);
    expect(bucket.remaining).toBeLessThanOrEqual(Math.min(10, 9 + restoredWithin(other.ms)));
  });

  it('never names a key in its log lines', () => {
    for (const line of stack.logs) for (const key of stack.keys()) expect(line).not.toContain(key);
  });
});
