// Every upstream read of the traffic tail asks the upstream itself, never the response cache: with
// RESPONSE_CACHE_TTL_S on and the same reads cached by queries over HTTP (or by earlier
// subscriptions), a fresh subscription starts after the newest entry at its subscribe (none logged
// before it is replayed), `afterId` of the true newest entry is accepted, a start at `from` finds
// the entries dated at or after it that were logged after a cached read of that window, and polls
// deliver what is logged later. Entries are logged behind the gateway's back (straight into v1's
// store), as a device's traffic is: nothing the gateway sends invalidates its cached reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng, makeLiveTrafficEntry } from 'reference-service/testing';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../../src/gateway/server.ts';
import { captureLogs, postGraphQL, TEST_KEYS } from '../../helpers/gateway.ts';
import { tailClient, until, type Received, type TailClient } from '../../helpers/subscriptions.ts';
import { startTestV1, type TestV1 } from '../../helpers/v1.ts';

const DEVICE = 1;
/** Past every seeded entry: the window from here is empty until the test logs into it. */
const FROM = new Date(Date.UTC(2030, 0, 1, 12));

const WINDOW = `query Window($deviceId: ID!, $filter: TrafficLogFilter) {
  trafficLog(deviceId: $deviceId, first: 5, filter: $filter, orderBy: { field: DATE_TIME }) { totalCount nodes { id } }
}`;

let v1: TestV1;
let gateway: Gateway;
let client: TailClient;
const rng = createRng(31);
let logged = 0;

/** Logs one entry of the device, dated `at` (by default just after FROM, one second apart), and returns its id. */
async function log(at = new Date(FROM.getTime() + 1000 * ++logged)): Promise<number> {
  return v1.store.insertTraffic({ ...makeLiveTrafficEntry(rng, DEVICE, at), date_time: at.toISOString().replace('.000Z', 'Z') });
}

async function windowCount(): Promise<number> {
  const answer = await postGraphQL<{ trafficLog: { totalCount: number } }>(gateway.url, { query: WINDOW, variables: { deviceId: String(DEVICE), filter: { from: FROM.toISOString() } } }, { 'x-service-token': TEST_KEYS.admin });
  expect(answer.errors, answer.text).toBeUndefined();
  return answer.data!.trafficLog.totalCount;
}

/** Waits until the gateway holds `count` admitted subscriptions (its /metrics says so). */
async function admitted(count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const metrics = await (await fetch(new URL('/metrics', gateway.url))).text();
    if (new RegExp(`^traffic_tail_subscriptions ${count}$`, 'm').test(metrics)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} admitted subscriptions`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits for the subscription's first entry (or its end) and returns what it received. */
async function firstOf(received: Received, what: string): Promise<Received> {
  await until(() => received.ids.length > 0 || received.errors.length > 0, 10_000, what);
  expect(received.errors, what).toEqual([]);
  return received;
}

beforeAll(async () => {
  v1 = await startTestV1({ seed: 'demo', seedSizes: { devices: 2, traffic: 200, hotTraffic: 0 } });
  const env = { RESPONSE_CACHE_TTL_S: '600', TAIL_POLL_INTERVAL_MS: '100' };
  gateway = await startGateway({ ...parseGatewayConfig(env), port: 0, upstreamUrl: v1.url, logger: captureLogs().logger });
  await gateway.upstreamChecked;
  client = tailClient(gateway.url, { 'x-service-token': TEST_KEYS.admin });
});

afterAll(async () => {
  await client?.dispose();
  await gateway?.close();
  await v1?.close();
});

describe('the tail with the response cache on', () => {
  it('reads the upstream for every start (now, afterId, from) and every poll, never a cached answer', async () => {
    // The window from FROM, read over HTTP: empty, and kept by the response cache.
    expect(await windowCount()).toBe(0);

    // A first subscriber from now; a first entry reaches it.
    const first = client.subscribe({ deviceId: String(DEVICE) });
    await admitted(1);
    const e1 = await log();
    await firstOf(first, 'the first subscriber');
    expect(first.ids).toEqual([e1]);

    // Logged behind the gateway's back: the cached window still says it is empty (the cache is on).
    const e2 = await log();
    expect(await windowCount()).toBe(0);

    // A fresh subscriber starts after e2, the newest at its subscribe: nothing before it is replayed.
    const fresh = client.subscribe({ deviceId: String(DEVICE) });
    // Resuming after the true newest entry is a valid start, whatever a cached read remembers.
    const resumed = client.subscribe({ deviceId: String(DEVICE), afterId: String(e2) });
    // From FROM: every entry dated at or after it, those logged after the cached read of the window included.
    const dated = client.subscribe({ deviceId: String(DEVICE), filter: { from: FROM.toISOString() } });
    await admitted(4);
    await firstOf(dated, 'the subscriber from FROM');
    expect(dated.ids.slice(0, 2)).toEqual([e1, e2]);

    const e3 = await log();
    await firstOf(fresh, 'the fresh subscriber');
    await firstOf(resumed, 'the resumed subscriber');
    // Polls deliver what is logged later, to everyone.
    const e4 = await log();
    await until(() => [first, fresh, resumed, dated].every((s) => s.ids.includes(e4)), 10_000, 'e4 for every subscriber');
    expect(fresh.ids).toEqual([e3, e4]);
    expect(resumed.ids).toEqual([e3, e4]);
    expect(dated.ids).toEqual([e1, e2, e3, e4]);
    expect(first.ids).toEqual([e1, e2, e3, e4]);
    // An entry logged dated before FROM reaches the subscribers from now, not the one from FROM.
    const early = await log(new Date(FROM.getTime() - 60_000));
    const e5 = await log();
    await until(() => [first, dated].every((s) => s.ids.includes(e5)), 10_000, 'e5');
    expect(first.ids.slice(-2)).toEqual([early, e5]);
    expect(dated.ids.slice(-1)).toEqual([e5]);
    expect(dated.ids).not.toContain(early);
  }, 30_000);
});
