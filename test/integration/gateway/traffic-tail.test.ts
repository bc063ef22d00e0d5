// The live traffic tail, end to end: graphql-ws clients over real WebSockets to the gateway, the
// reference service behind it with its traffic simulator, upstream calls counted at a proxy, and
// what the subscribers received checked against the v1 log read over REST.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';
import { TAIL_SUBSCRIPTION, tailClient, until, type TailClient } from '../../helpers/subscriptions.ts';
import { v1Request } from '../../helpers/v1.ts';
import { createRng, insertTraffic, makeLiveTrafficEntry } from 'reference-service/testing';

const POLL_MS = 100;
const ADMIN = TEST_KEYS.admin;

let stack: Stack;
let device: string;
let otherOrganizationsDevice: string;
const clients: TailClient[] = [];

function connect(key: string | null = ADMIN, stackUnder: Stack = stack): TailClient {
  const client = tailClient(stackUnder.gateway.url, key === null ? null : { 'x-service-token': key });
  clients.push(client);
  return client;
}

/** The ids of device's v1 log above `after`, ascending (at most 1,000 back), read over REST. */
async function v1Ids(deviceId: string, after: number, filter = ''): Promise<number[]> {
  const response = await v1Request(stack.v1, 'GET', `/api/v1/atb/${deviceId}/traffic?order=-id&limit=1000${filter}`);
  return (response.json.data as { id: number }[]).map((entry) => entry.id).filter((id) => id > after).sort((a, b) => a - b);
}

/** The v1 ids from `ids[0]` to the last of `ids`: what a gapless, duplicate-free subscriber got. */
async function expectGapless(deviceId: string, ids: number[], filter = ''): Promise<void> {
  expect(ids.length).toBeGreaterThan(0);
  const expected = (await v1Ids(deviceId, ids[0]! - 1, filter)).filter((id) => id <= ids.at(-1)!);
  expect(ids).toEqual(expected);
}

function tailSettings(overrides: Partial<ReturnType<typeof parseGatewayConfig>['tail']> = {}) {
  return { tail: { ...parseGatewayConfig({}).tail, pollIntervalMs: POLL_MS, ...overrides } };
}

beforeAll(async () => {
  // About 10 entries a second per device (12 devices).
  // Device 1 has 1,500 more entries: more than a resumed subscription replays.
  stack = await startStack({ v1: { simulateTraffic: 120, seedSizes: { devices: 12, traffic: 400, hotTraffic: 1500 } }, gateway: tailSettings({ maxSubscriptionsPerConnection: 3, recheckMs: 400 }), key: ADMIN });
  const devices = await v1Request(stack.v1, 'GET', '/api/v1/atb?limit=500');
  const all = devices.json.data as { id: number; organization: { id: number } }[];
  device = String(all.find((d) => d.organization.id === 1)!.id);
  otherOrganizationsDevice = String(all.find((d) => d.organization.id !== 2)!.id);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
});

afterAll(async () => {
  await stack?.close();
});

describe('Subscription.trafficLogEntryAdded', () => {
  it('gives ten subscribers of one device the same new entries, each once, ascending, without a gap, from one poller', async () => {
    const subscribers = Array.from({ length: 10 }, () => connect().subscribe({ deviceId: device }));
    await until(() => subscribers.every((s) => s.ids.length >= 15), 15_000, 'entries for every subscriber');
    stack.proxy.reset();
    const startedAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Polls read from offset 0; each subscriber's admission and recheck reads one entry, without an offset.
    const polls = stack.proxy.calls.filter((call) => call.path === `/api/v1/atb/${device}/traffic` && call.query.get('offset') === '0').length;
    // The ten subscribers share a key: one recheck per period (400 ms here) for all of them.
    const rechecks = stack.proxy.calls.filter((call) => call.path === `/api/v1/atb/${device}/traffic` && !call.query.has('offset')).length;
    const elapsed = performance.now() - startedAt;
    for (const s of subscribers) s.stop();

    for (const s of subscribers) {
      expect(s.errors).toEqual([]);
      await expectGapless(device, s.ids);
    }
    // Every subscriber got the same entries over the span they all covered.
    const from = Math.max(...subscribers.map((s) => s.ids[0]!));
    const to = Math.min(...subscribers.map((s) => s.ids.at(-1)!));
    const common = subscribers.map((s) => s.ids.filter((id) => id >= from && id <= to));
    for (const ids of common) expect(ids).toEqual(common[0]);
    // One poller's calls: about one per interval, not one per subscriber per interval.
    expect(polls).toBeGreaterThan(0);
    expect(polls).toBeLessThanOrEqual(Math.ceil(elapsed / POLL_MS) + 2);
    expect(rechecks).toBeGreaterThan(0);
    expect(rechecks).toBeLessThanOrEqual(Math.ceil(elapsed / 400) + 2);
  });

  it('resumes after afterId with the entries logged meanwhile, matching the filter, without a gap', async () => {
    const filter = { search: 'GET' };
    const first = connect().subscribe({ deviceId: device, filter });
    await until(() => first.ids.length >= 3, 15_000, 'first entries');
    first.stop();
    const last = first.ids.at(-1)!;
    await new Promise((resolve) => setTimeout(resolve, 600));
    const resumed = connect().subscribe({ deviceId: device, filter, afterId: String(last) });
    await until(() => resumed.ids.length >= 3, 15_000, 'resumed entries');
    resumed.stop();
    expect(resumed.errors).toEqual([]);
    await expectGapless(device, [...first.ids, ...resumed.ids], '&search=GET');
  });

  it('loses nothing of a burst larger than a page: it reads further pages back', async () => {
    const s = connect().subscribe({ deviceId: device });
    await until(() => s.ids.length > 0, 15_000, 'a first entry');
    // 2,500 entries logged at once (v1 has no ingestion API: its own storage, as its simulator does).
    const rng = createRng(11);
    const burst = stack.v1.db.transaction(() => {
      for (let i = 0; i < 2500; i++) insertTraffic(stack.v1.db, makeLiveTrafficEntry(rng, Number(device), new Date()));
    });
    burst();
    const newest = (await v1Ids(device, 0)).at(-1)!;
    await until(() => (s.ids.at(-1) ?? 0) >= newest, 15_000, 'the whole burst');
    s.stop();
    expect(s.errors).toEqual([]);
    // The log read back over REST, a page at a time, down to the subscriber's first entry (entries
    // logged since it stopped, however many a slow machine let in, are more pages to read).
    const read: { id: number }[] = [];
    for (let offset = 0; offset < 20_000 && (read.length === 0 || read.at(-1)!.id > s.ids[0]!); offset += 1000) {
      const page = (await v1Request(stack.v1, 'GET', `/api/v1/atb/${device}/traffic?order=-id&limit=1000&offset=${offset}`)).json.data as { id: number }[];
      if (page.length === 0) break;
      read.push(...page);
    }
    // New entries may land between these reads and shift the pages: overlap, never a hole.
    const all = [...new Set(read.map((e) => e.id))].filter((id) => id >= s.ids[0]! && id <= s.ids.at(-1)!).sort((a, b) => a - b);
    expect(s.ids).toEqual(all);
    expect(s.ids.length).toBeGreaterThan(2500);
  });

  it('refuses another organization\'s device with NOT_FOUND before any entry', async () => {
    const s = connect(TEST_KEYS.org2).subscribe({ deviceId: otherOrganizationsDevice });
    await s.ended;
    expect(s.ids).toEqual([]);
    expect(s.errors.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
  });

  it('stops a subscriber whose key loses access, at its next check, and goes on for the others', async () => {
    const admin = connect(ADMIN).subscribe({ deviceId: device });
    const member = connect(TEST_KEYS.org1).subscribe({ deviceId: device });
    await until(() => admin.ids.length > 0 && member.ids.length > 0, 15_000, 'entries for both');
    // From now on v1 answers the member's key as if the device were another organization's.
    stack.proxy.fail((call) => (call.headers['x-service-token'] === TEST_KEYS.org1 ? 404 : undefined));
    try {
      await member.ended;
      const at = admin.ids.length;
      await until(() => admin.ids.length >= at + 3, 15_000, 'entries after the member left');
    } finally {
      stack.proxy.reset();
    }
    admin.stop();
    expect(member.errors.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
    expect(admin.errors).toEqual([]);
    await expectGapless(device, admin.ids);
  });

  it('refuses bad arguments before any polling', async () => {
    const client = connect();
    const badDevice = client.subscribe({ deviceId: 'abc' });
    const badAfter = client.subscribe({ deviceId: device, afterId: 'x1' });
    const futureAfter = client.subscribe({ deviceId: device, afterId: '999999999' });
    await Promise.all([badDevice.ended, badAfter.ended, futureAfter.ended]);
    for (const s of [badDevice, badAfter, futureAfter]) {
      expect(s.ids).toEqual([]);
      expect(s.errors.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    }
  });

  it('ends with TAIL_GAP when more entries were missed than it replays', async () => {
    const oldest = (await v1Request(stack.v1, 'GET', '/api/v1/atb/1/traffic?order=id&limit=1')).json.data[0].id as number;
    const total = (await v1Request(stack.v1, 'GET', '/api/v1/atb/1/traffic?limit=1')).json.total as number;
    expect(total).toBeGreaterThan(1001);
    const s = connect().subscribe({ deviceId: '1', afterId: String(oldest) });
    await s.ended;
    expect(s.ids).toEqual([]);
    expect(s.errors.map((e) => e.extensions?.code)).toEqual(['TAIL_GAP']);
  });

  it('closes a connection without a key with 4401', async () => {
    const client = connect(null);
    const s = client.subscribe({ deviceId: device });
    const closed = await client.closed;
    expect(closed.code).toBe(4401);
    expect(s.ids).toEqual([]);
  });

  it('caps the subscriptions of one connection, and runs subscriptions only', async () => {
    const client = connect();
    const held = [0, 1, 2].map(() => client.subscribe({ deviceId: device }));
    await until(() => held.every((s) => s.ids.length > 0), 15_000, 'the first three subscriptions');
    const fourth = client.subscribe({ deviceId: device });
    const query = connect().subscribe({}, '{ protectionDevices(first: 1) { totalCount } }');
    await Promise.all([fourth.ended, query.ended]);
    expect(fourth.errors.map((e) => e.extensions?.code)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);
    expect(query.errors.map((e) => e.extensions?.code)).toEqual(['OPERATION_NOT_SUPPORTED']);
    expect(held.every((s) => !s.completed)).toBe(true);
  });

  it('applies the query limits to subscription documents', async () => {
    const s = connect().subscribe({ deviceId: device }, 'subscription { trafficLogEntryAdded(deviceId: "1") { id nope } }');
    await s.ended;
    expect(s.errors.map((e) => e.extensions?.code)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });

  it('shows connections, subscriptions, pollers, polls and deliveries in /metrics, and no key in any log line', async () => {
    const s = connect().subscribe({ deviceId: device });
    await until(() => s.ids.length > 0, 15_000, 'an entry');
    const metrics = await (await fetch(new URL('/metrics', stack.gateway.url))).text();
    expect(metrics).toMatch(/^graphql_ws_connections 1$/m);
    expect(metrics).toMatch(/^traffic_tail_subscriptions 1$/m);
    expect(metrics).toMatch(/^traffic_tail_pollers 1$/m);
    expect(metrics).toMatch(/^traffic_tail_polls_total\{outcome="ok"\} [1-9]/m);
    expect(metrics).toMatch(/^traffic_tail_entries_delivered_total [1-9]/m);
    s.stop();
    await until(() => stack.logs.some((line) => line.includes('websocket connection closed')), 5_000, 'a close line');
    expect(stack.logs.some((line) => line.includes('websocket connection opened'))).toBe(true);
    for (const line of stack.logs) for (const key of stack.keys()) expect(line).not.toContain(key);
  });
});

describe('the tail when the upstream fails', () => {
  let failing: Stack;
  beforeAll(async () => {
    failing = await startStack({ v1: { simulateTraffic: 120 }, gateway: { ...tailSettings({ maxFailureMs: 1500 }), upstreamRetries: 0 }, key: ADMIN });
  });
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
    await failing?.close();
  });

  it('keeps the subscription through a failure and then delivers what was missed, without a gap', async () => {
    const s = connect(ADMIN, failing).subscribe({ deviceId: device });
    await until(() => s.ids.length >= 3, 15_000, 'first entries');
    failing.proxy.fail((call) => (call.path.endsWith('/traffic') ? 503 : undefined));
    await new Promise((resolve) => setTimeout(resolve, 700));
    const before = s.ids.length;
    failing.proxy.reset();
    await until(() => s.ids.length >= before + 5, 15_000, 'entries after recovery');
    s.stop();
    expect(s.errors).toEqual([]);
    const response = await v1Request(failing.v1, 'GET', `/api/v1/atb/${device}/traffic?order=-id&limit=1000`);
    const logged = (response.json.data as { id: number }[]).map((e) => e.id).filter((id) => id >= s.ids[0]! && id <= s.ids.at(-1)!).sort((a, b) => a - b);
    expect(s.ids).toEqual(logged);
  });

  it('ends the subscription with the failure\'s code once failures outlast TAIL_MAX_FAILURE_S', async () => {
    const s = connect(ADMIN, failing).subscribe({ deviceId: device });
    await until(() => s.ids.length >= 1, 15_000, 'an entry');
    failing.proxy.fail((call) => (call.path.endsWith('/traffic') ? 503 : undefined));
    await s.ended;
    failing.proxy.reset();
    expect(s.errors.map((e) => e.extensions?.code)).toEqual(['UPSTREAM_UNAVAILABLE']);
  });
});

export { TAIL_SUBSCRIPTION };
