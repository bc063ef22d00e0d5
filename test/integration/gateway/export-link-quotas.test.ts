// Export links are bounded per key: one tenant minting links in a loop evicts only its own (its
// expired ones first, then its oldest), never another tenant's valid link.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../../src/gateway/server.ts';
import { captureLogs, postGraphQL, TEST_KEYS } from '../../helpers/gateway.ts';
import { startRedis } from '../../helpers/redis.ts';
import { startTestV1, v1Request, type TestV1 } from '../../helpers/v1.ts';

/** Links minted by one operation: aliased mutations run one after another. */
const PER_OPERATION = 200;

let v1: TestV1;
let gateway: Gateway;
const devices = new Map<number, string>();

function mintMany(deviceId: string, count: number): string {
  const fields = Array.from({ length: count }, (_, i) => `l${i}: createTrafficExport(deviceId: $d, format: CSV) { export { url } }`);
  return `mutation Mint($d: ID!) { ${fields.join(' ')} }`;
}

async function mint(key: string, organization: number, count: number): Promise<string[]> {
  const answer = await postGraphQL<Record<string, { export: { url: string } }>>(gateway.url, { query: mintMany(devices.get(organization)!, count), variables: { d: devices.get(organization) } }, { 'x-service-token': key });
  expect(answer.errors, answer.text.slice(0, 500)).toBeUndefined();
  return Object.values(answer.data!).map((field) => field.export.url);
}

beforeAll(async () => {
  v1 = await startTestV1({ seed: 'demo', seedSizes: { devices: 12, traffic: 200, hotTraffic: 0 } });
  for (const device of (await v1Request(v1, 'GET', '/api/v1/atb?limit=500')).json.data as { id: number; organization: { id: number } }[]) {
    if (!devices.has(device.organization.id)) devices.set(device.organization.id, String(device.id));
  }
  const env = { MAX_ALIASES: String(PER_OPERATION), MAX_UPSTREAM_CALLS: String(PER_OPERATION), MAX_COST: '1000000', MAX_TOKENS: '100000' };
  gateway = await startGateway({ ...parseGatewayConfig(env), port: 0, upstreamUrl: v1.url, logger: captureLogs().logger });
  await gateway.upstreamChecked;
});

afterAll(async () => {
  await gateway?.close();
  await v1?.close();
});

describe('export links per key', () => {
  it("10,200 links minted by one organization leave another organization's link valid", async () => {
    const [kept] = await mint(TEST_KEYS.org1, 1, 1);
    const minted: string[] = [];
    // Three operations at a time, each minting PER_OPERATION links; the last ones alone, so that
    // the order of `minted` is the order made where it is checked.
    for (let round = 0; round < 16; round++) {
      const batch = await Promise.all(Array.from({ length: 3 }, () => mint(TEST_KEYS.org2, 2, PER_OPERATION)));
      minted.push(...batch.flat());
    }
    for (let i = 0; i < 3; i++) minted.push(...(await mint(TEST_KEYS.org2, 2, PER_OPERATION)));
    expect(minted.length).toBeGreaterThanOrEqual(10_200);
    expect((await fetch(kept!, { method: 'HEAD' })).status).toBe(200);
    // The loop evicted its own links: its newest (within EXPORT_LINKS_PER_KEY, 100) work, its oldest are gone.
    expect((await fetch(minted.at(-1)!, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(minted.at(-100)!, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(minted.at(-101)!, { method: 'HEAD' })).status).toBe(404);
    expect((await fetch(minted[0]!, { method: 'HEAD' })).status).toBe(404);
  }, 240_000);

  it('holds with REDIS_URL too: each key past EXPORT_LINKS_PER_KEY loses its own oldest links, on every replica', async () => {
    const redis = await startRedis();
    const replicas: Gateway[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const replica = await startGateway({ ...parseGatewayConfig({ REDIS_URL: redis.url, EXPORT_LINKS_PER_KEY: '3' }), port: 0, upstreamUrl: v1.url, logger: captureLogs().logger });
        await replica.upstreamChecked;
        replicas.push(replica);
      }
      const mintOn = async (replica: Gateway, key: string, organization: number) => {
        const answer = await postGraphQL<{ createTrafficExport: { export: { url: string } } }>(
          replica.url,
          { query: 'mutation M($d: ID!) { createTrafficExport(deviceId: $d, format: CSV) { export { url } } }', variables: { d: devices.get(organization) } },
          { 'x-service-token': key },
        );
        expect(answer.errors, answer.text).toBeUndefined();
        return answer.data!.createTrafficExport.export.url;
      };
      const kept = await mintOn(replicas[0]!, TEST_KEYS.org1, 1);
      const own: string[] = [];
      for (let i = 0; i < 5; i++) own.push(await mintOn(replicas[i % 2]!, TEST_KEYS.org2, 2));
      // Read through the other replica: the link lives in Redis, not in either process.
      const other = (url: string) => url.replace(new URL(replicas[0]!.url).origin, new URL(replicas[1]!.url).origin);
      expect((await fetch(other(kept), { method: 'HEAD' })).status).toBe(200);
      expect(await Promise.all(own.map(async (url) => (await fetch(other(url), { method: 'HEAD' })).status))).toEqual([404, 404, 200, 200, 200]);
    } finally {
      for (const replica of replicas) await replica.close();
      await redis.close();
    }
  }, 60_000);
});
