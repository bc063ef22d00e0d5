// Every surface follows the signed-in user: throttling (one bucket per `sub`), the response cache
// (shared by one organization's users with the same scopes, never across organizations), export
// links (acting with the organization's key, ending no later than the token), tracing (the `sub`,
// nothing else of the token), with Redis and an OTLP receiver for real. Then a sweep: no upstream
// key, token or unlisted claim in any log line, response, exported span or Redis value.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { TEST_KEYS } from '../../helpers/gateway.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../../helpers/otlp-receiver.ts';
import { redisAvailable, startRedis, type TestRedis } from '../../helpers/redis.ts';
import { startSignedInStack, type SignedInStack } from '../../helpers/signed-in.ts';
import { v1Request } from '../../helpers/v1.ts';

/** A claim the contract lists nowhere: it must never leave the token. */
const UNLISTED_CLAIM = 'private-claim-value-6c1e9a';

let stack: SignedInStack;
let receiver: OtlpReceiver;
let redis: TestRedis;
const tokens: string[] = [];
const responses: string[] = [];

async function signed(sub: string, organization: string, scopes: string[], ttlS = 300): Promise<string> {
  const claims = { ...stack.idp.baseClaims(sub, organization, scopes), exp: Math.floor(Date.now() / 1000) + ttlS, email: `${UNLISTED_CLAIM}@example.test`, name: UNLISTED_CLAIM };
  const token = await stack.idp.sign(claims);
  tokens.push(token);
  return token;
}

async function send(query: string, token: string) {
  const response = await stack.send(query, token);
  responses.push(response.text);
  return response;
}

beforeAll(async () => {
  if (!redisAvailable()) throw new Error('redis-server is needed (Debian package redis-server)');
  receiver = await startOtlpReceiver();
  redis = await startRedis();
  const config = parseGatewayConfig({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '50',
    REDIS_URL: redis.url,
    RESPONSE_CACHE_TTL_S: '60',
    RATE_LIMIT_CALLS: '3',
    RATE_LIMIT_RESTORE_PER_S: '1',
  });
  stack = await startSignedInStack({
    gateway: { tracing: config.tracing, redisUrl: config.redisUrl, responseCache: config.responseCache, rateLimit: config.rateLimit },
  });
});

afterAll(async () => {
  await stack?.close();
  await redis?.close();
  await receiver?.close();
});

const DEVICES = '{ protectionDevices(first: 1) { totalCount } }';

describe('every surface follows the identity', () => {
  it('throttles each user in a bucket of its own, though users of one organization share its key', async () => {
    const alice = await signed('alice', '1', ['devices:read']);
    const bob = await signed('bob', '1', ['devices:read', 'traffic:read']);
    const statuses: number[] = [];
    // Two calls a request, none of them answered from the cache: a bucket of 3 is empty by the third.
    for (let i = 0; i < 4; i++) {
      const query = `{ a: protectionDevices(first: 1, filter: { services: ["a${i}"] }) { totalCount } b: protectionDevices(first: 1, filter: { services: ["b${i}"] }) { totalCount } }`;
      statuses.push((await send(query, alice)).status);
    }
    expect(statuses).toContain(429);
    const other = await send(DEVICES, bob);
    expect(other.status, other.text).toBe(200);
  });

  it('shares cached answers among one organization’s users with the same scopes, never across organizations', async () => {
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // buckets refilled
    const carol = await signed('carol', '2', ['devices:read']);
    const dave = await signed('dave', '2', ['devices:read']);
    const erin = await signed('erin', '1', ['devices:read']);
    const query = '{ protectionDevices(first: 2, orderBy: { field: ID }) { totalCount nodes { id } } }';
    stack.proxy.reset();
    const first = await send(query, carol);
    expect(first.errors, first.text).toBeUndefined();
    const calls = stack.proxy.calls.length;
    expect(calls).toBeGreaterThan(0);
    const second = await send(query, dave);
    expect(second.data).toEqual(first.data);
    expect(stack.proxy.calls.length).toBe(calls);
    await send(query, erin);
    expect(stack.proxy.calls.length).toBeGreaterThan(calls);
    expect(stack.proxy.calls.slice(calls).every((call) => call.headers['x-service-token'] === TEST_KEYS.org1)).toBe(true);
  });

  it('mints export links that act with the organization’s key and end no later than the token', async () => {
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const devices = await v1Request(stack.v1, 'GET', '/api/v1/atb?limit=500');
    const device = String((devices.json.data as { id: number; organization: { id: number } }[]).find((d) => d.organization.id === 1)!.id);
    const token = await signed('frank', '1', ['traffic:export'], 45);
    const exp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp as number;
    const minted = await send(`mutation { createTrafficExport(deviceId: "${device}", format: NDJSON) { export { url expiresAt } } }`, token);
    expect(minted.errors, minted.text).toBeUndefined();
    const link = (minted.data as { createTrafficExport: { export: { url: string; expiresAt: string } } }).createTrafficExport.export;
    expect(Date.parse(link.expiresAt)).toBeLessThanOrEqual(exp * 1000);
    stack.proxy.reset();
    const download = await fetch(link.url);
    expect(download.status).toBe(200);
    await download.text();
    expect(stack.proxy.calls.map((call) => call.headers['x-service-token'])).toEqual([TEST_KEYS.org1]);
  });

  it('gives an operation’s span the user’s sub, and nothing else of the token', async () => {
    const token = await signed('grace', '1', ['devices:read']);
    await send(DEVICES, token);
    const spans = await receiver.waitFor(1, (span) => span.attributes['enduser.id'] === 'grace');
    expect(spans[0]!.attributes['enduser.id']).toBe('grace');
  });
});

describe('the leak sweep', () => {
  it('finds no upstream key, token or unlisted claim in logs, responses, spans or Redis', async () => {
    // A few refusals too: their answers and log lines are swept as well.
    await send(DEVICES, `${tokens[0]!.slice(0, -4)}AAAA`);
    await send(DEVICES, TEST_KEYS.org2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const secrets = [...Object.values(TEST_KEYS), ...tokens, UNLISTED_CLAIM];
    // Each token's signature alone, too: a token cut in a log line is still a leak.
    secrets.push(...tokens.map((token) => token.split('.')[2]!));
    const client = new Redis(redis.url);
    const redisValues: string[] = [];
    try {
      for (const name of await client.keys('*')) {
        const type = await client.type(name);
        const value =
          type === 'string' ? await client.get(name) : type === 'hash' ? JSON.stringify(await client.hgetall(name)) : type === 'zset' ? JSON.stringify(await client.zrange(name, 0, -1)) : type === 'list' ? JSON.stringify(await client.lrange(name, 0, -1)) : '';
        redisValues.push(name, value ?? '');
      }
    } finally {
      client.disconnect();
    }
    expect(redisValues.length).toBeGreaterThan(0);
    expect(stack.logs.length).toBeGreaterThan(0);
    expect(receiver.bodies.length).toBeGreaterThan(0);
    for (const [where, texts] of [['logs', stack.logs], ['responses', responses], ['spans', receiver.bodies], ['redis', redisValues]] as const) {
      for (const secret of secrets) expect(texts.filter((text) => text.includes(secret)), `${where}`).toEqual([]);
    }
  });
});
