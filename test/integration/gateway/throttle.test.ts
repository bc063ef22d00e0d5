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

describe('throttling by cost (RATE_LIMIT_CALLS=10, RATE_LIMIT_RESTORE_PER_S=4)', () => {
  beforeAll(async () => {
    const config = parseGatewayConfig({ RATE_LIMIT_CALLS: '10', RATE_LIMIT_RESTORE_PER_S: '4' });
    stack = await startStack({ gateway: { rateLimit: config.rateLimit }, key: TEST_KEYS.admin });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('charges what an operation spent, refuses the next one whose estimate is over what is left before any upstream call, and restores over time', async () => {
    const first = await send(SIX_CALLS);
    expect(first.status).toBe(200);
    expect(first.errors).toBeUndefined();
    expect(throttleOf(first)).toEqual({ limit: 10, remaining: 4, restorePerSecond: 4 });

    stack.proxy.reset();
    const refused = await send(SIX_CALLS);
    expect(refused.status).toBe(429);
    expect(refused.data).toBeUndefined();
    const error = refused.errors![0]!;
    expect(error.extensions?.code).toBe('RATE_LIMITED');
    expect(error.extensions?.retryAfter).toBe(1);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(error.message).toMatch(/needs an estimated 6 upstream calls and this key has 4 left/);
    expect(throttleOf(refused)).toEqual({ limit: 10, remaining: 4, restorePerSecond: 4 });
    expect(stack.proxy.calls).toEqual([]);

    await new Promise((resolve) => setTimeout(resolve, 1100));
    const later = await send(SIX_CALLS);
    expect(later.status).toBe(200);
    expect(throttleOf(later)).toMatchObject({ limit: 10 });
  });

  it('gives each key a bucket of its own', async () => {
    // The admin key's bucket is nearly spent by the case above; the organization key's is full.
    const other = await send(TWICE_THE_SAME, TEST_KEYS.org1);
    expect(other.status).toBe(200);
    // Estimated 2, spent 1: the bucket loses what was spent.
    expect(JSON.parse(other.text).extensions.cost.upstreamCalls).toBe(1);
    expect(throttleOf(other)).toEqual({ limit: 10, remaining: 9, restorePerSecond: 4 });
  });

  it('never names a key in its log lines', () => {
    for (const line of stack.logs) for (const key of stack.keys()) expect(line).not.toContain(key);
  });
});
