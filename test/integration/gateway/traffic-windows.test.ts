// Time windows over a device's traffic log, through the gateway over HTTP, against a truth
// computed from the v1 service's own pages: every entry of the device under the same search and
// actions, read directly in ascending date_time, cut at `from` (inclusive) and `to` (exclusive).
// Counts, first and last entries, every page both ways in both directions, windows empty, before
// the first and after the last entry, bounds that fall on a timestamp several entries share;
// a window's bounds found once per operation; refusals before any call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertTraffic, createRng, makeLiveTrafficEntry } from 'reference-service/testing';
import { expectNoErrors, walkBothWays, type IdPage, type PageArgs } from '../../helpers/connection-checks.ts';
import { onlyError, startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';
import { tailClient, until } from '../../helpers/subscriptions.ts';
import { v1Request } from '../../helpers/v1.ts';
import { TrafficWindowIdsDocument, TrafficWindowTwiceDocument, type TrafficLogFilter } from '../../generated/operations.ts';

const DEVICE = '1';
/** A timestamp that several entries share, past the seeded ones. */
const SHARED = '2026-11-25T10:00:00Z';

interface Entry {
  id: number;
  date_time: string;
}

let stack: Stack;

/** Every entry of the device under this search and actions, in ascending date_time, as v1 pages it. */
async function ascending(filter: { search?: string; actions?: string[] } = {}): Promise<Entry[]> {
  const entries: Entry[] = [];
  for (let offset = 0; ; offset += 1000) {
    const query = new URLSearchParams({ limit: '1000', offset: String(offset), order: 'date_time' });
    if (filter.search) query.set('search', filter.search);
    for (const action of filter.actions ?? []) query.append('actions[]', action);
    const page = await v1Request(stack.v1, 'GET', `/api/v1/atb/${DEVICE}/traffic?${query}`, { token: TEST_KEYS.admin });
    expect(page.status).toBe(200);
    entries.push(...(page.json.data as Entry[]));
    if (entries.length >= page.json.total) return entries;
  }
}

function inWindow(entries: Entry[], from?: string, to?: string): string[] {
  return entries
    .filter((e) => (from === undefined || Date.parse(e.date_time) >= Date.parse(from)) && (to === undefined || Date.parse(e.date_time) < Date.parse(to)))
    .map((e) => String(e.id));
}

beforeAll(async () => {
  stack = await startStack({ v1: { seedSizes: { devices: 6, traffic: 1200, hotTraffic: 3000 } }, key: TEST_KEYS.admin });
  // Entries that share one timestamp, some of them blocked, past every seeded entry.
  const rng = createRng(35);
  for (let i = 0; i < 7; i++) {
    const entry = makeLiveTrafficEntry(rng, Number(DEVICE), new Date(SHARED));
    insertTraffic(stack.v1.db, { ...entry, date_time: SHARED, extra: { ...entry.extra, action: i % 2 === 0 ? 'block' : 'allow' } });
  }
  const later = makeLiveTrafficEntry(rng, Number(DEVICE), new Date('2026-11-25T10:00:01Z'));
  insertTraffic(stack.v1.db, { ...later, date_time: '2026-11-25T10:00:01Z' });
});
afterAll(async () => {
  await stack?.close();
});

function ask(filter: TrafficLogFilter, direction: 'ASC' | 'DESC') {
  return async (args: PageArgs) =>
    expectNoErrors(await stack.query(TrafficWindowIdsDocument, { deviceId: DEVICE, ...args, filter, orderBy: { field: 'DATE_TIME', direction } }))
      .trafficLog as unknown as IdPage;
}

describe('a time window of trafficLog', () => {
  it('is exactly the entries the v1 service dates in it, paged both ways in both directions, with search and actions', async () => {
    const all = await ascending();
    expect(all.length).toBeGreaterThan(1000);
    const at = (fraction: number) => all[Math.floor(all.length * fraction)]!.date_time;
    const windows: [string, string | undefined, string | undefined][] = [
      ['the middle', at(0.3), at(0.36)],
      ['from only', at(0.95), undefined],
      ['to only', undefined, at(0.04)],
      ['one millisecond past a timestamp', new Date(Date.parse(at(0.5)) + 1).toISOString(), at(0.53)],
    ];
    for (const filter of [{}, { actions: ['block'] }, { search: 'GET' }, { search: 'GET', actions: ['block', 'challenge'] }]) {
      const entries = await ascending(filter);
      for (const [name, from, to] of windows) {
        const expected = inWindow(entries, from, to);
        const window: TrafficLogFilter = { ...filter, ...(from ? { from } : {}), ...(to ? { to } : {}) };
        const label = `${name} ${JSON.stringify(filter)}`;
        expect(expected.length, label).toBeGreaterThan(0);
        await walkBothWays(ask(window, 'ASC'), expected, 23, `${label} ascending`);
        await walkBothWays(ask(window, 'DESC'), [...expected].reverse(), 31, `${label} descending`);
      }
    }
  }, 240_000);

  it('cuts a run of entries that share a timestamp: from takes all of them, to none of them', async () => {
    const entries = await ascending();
    const shared = entries.filter((e) => Date.parse(e.date_time) === Date.parse(SHARED)).map((e) => String(e.id));
    expect(shared).toHaveLength(7);
    const page = async (filter: TrafficLogFilter, direction: 'ASC' | 'DESC' = 'ASC') =>
      expectNoErrors(await stack.query(TrafficWindowIdsDocument, { deviceId: DEVICE, first: 100, filter, orderBy: { field: 'DATE_TIME', direction } })).trafficLog!;
    const from = await page({ from: SHARED });
    expect(from.nodes.map((n) => n.id)).toEqual(inWindow(entries, SHARED));
    expect(from.nodes.slice(0, 7).map((n) => n.id)).toEqual(shared);
    const upTo = await page({ from: '2026-11-25T09:00:00Z', to: SHARED });
    expect(upTo.nodes.map((n) => n.id)).toEqual(inWindow(entries, '2026-11-25T09:00:00Z', SHARED));
    expect(upTo.totalCount).toBe(0);
    const exactly = await page({ from: SHARED, to: '2026-11-25T10:00:00.001Z' }, 'DESC');
    expect(exactly.nodes.map((n) => n.id)).toEqual([...shared].reverse());
    expect(exactly.totalCount).toBe(7);
    const blocked = await page({ from: SHARED, to: '2026-11-25T10:00:01Z', actions: ['block'] });
    expect(blocked.nodes.map((n) => n.id)).toEqual(inWindow(await ascending({ actions: ['block'] }), SHARED, '2026-11-25T10:00:01Z'));
    expect(blocked.totalCount).toBe(4);
  });

  it('is empty before the first entry, after the last, between two entries, and for an empty instant', async () => {
    const entries = await ascending();
    const first = Date.parse(entries[0]!.date_time);
    const last = Date.parse(entries.at(-1)!.date_time);
    const empty: [string, string, string][] = [
      ['before the first', new Date(first - 86_400_000).toISOString(), new Date(first).toISOString()],
      ['after the last', new Date(last + 1).toISOString(), new Date(last + 86_400_000).toISOString()],
      ['between two entries', '2026-11-25T10:00:00.001Z', '2026-11-25T10:00:01Z'],
      ['from equal to to', SHARED, SHARED],
    ];
    for (const [name, from, to] of empty) {
      for (const direction of ['ASC', 'DESC'] as const) {
        for (const args of [{ first: 5 }, { last: 5 }]) {
          const page = expectNoErrors(await stack.query(TrafficWindowIdsDocument, { deviceId: DEVICE, ...args, filter: { from, to }, orderBy: { field: 'DATE_TIME', direction } })).trafficLog!;
          expect(page, name).toMatchObject({ nodes: [], totalCount: 0, pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } });
        }
      }
    }
    const everything = expectNoErrors(
      await stack.query(TrafficWindowIdsDocument, { deviceId: DEVICE, first: 1, filter: { from: new Date(first).toISOString(), to: new Date(last + 1).toISOString() }, orderBy: { field: 'DATE_TIME' } }),
    ).trafficLog!;
    expect(everything.totalCount).toBe(entries.length);
    expect(everything.nodes.map((n) => n.id)).toEqual([String(entries.at(-1)!.id)]);
  });

  it('finds a window once per operation, for every field that reads it', async () => {
    const entries = await ascending();
    const from = entries[Math.floor(entries.length / 3)]!.date_time;
    const to = entries[Math.floor(entries.length / 2)]!.date_time;
    const expected = inWindow(entries, from, to);
    stack.proxy.reset();
    const both = expectNoErrors(await stack.query(TrafficWindowTwiceDocument, { deviceId: DEVICE, filter: { from, to } }));
    expect(both.protectionDevice?.traffic?.totalCount).toBe(expected.length);
    expect(both.trafficLog?.totalCount).toBe(expected.length);
    expect(both.protectionDevice?.traffic?.nodes.map((n) => n.id)).toEqual(expected.slice(-3).reverse());
    expect(both.trafficLog?.nodes.map((n) => n.id)).toEqual(expected.slice(-3));
    const traffic = stack.proxy.lines().filter((line) => line.includes('/traffic'));

    const probes = traffic.filter((line) => line.includes('limit=1&'));
    // Every probe once: a second search of the same window would repeat them.
    expect(new Set(traffic).size).toBe(traffic.length);
    expect(probes.length).toBeGreaterThan(2);
    // The two pages: the last three of the window, read once in ascending order.
    expect(traffic.length - probes.length).toBe(1);
  });

  it('keeps cursors to the window, and refuses a window with another order, a reversed one, or a cursor of another window', async () => {
    const entries = await ascending();
    const from = entries[100]!.date_time;
    const to = entries[400]!.date_time;
    const first = expectNoErrors(await stack.query(TrafficWindowIdsDocument, { deviceId: DEVICE, first: 2, filter: { from, to }, orderBy: { field: 'DATE_TIME' } })).trafficLog!;
    stack.proxy.reset();
    const other = await stack.query(TrafficWindowIdsDocument, { deviceId: DEVICE, first: 2, after: first.pageInfo.endCursor, filter: { from, to: entries[401]!.date_time }, orderBy: { field: 'DATE_TIME' } });
    expect(onlyError(other).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    const unwindowed = await stack.query(TrafficWindowIdsDocument, { deviceId: DEVICE, first: 2, after: first.pageInfo.endCursor, orderBy: { field: 'DATE_TIME' } });
    expect(onlyError(unwindowed).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    const byId = await stack.query(TrafficWindowIdsDocument, { deviceId: DEVICE, first: 2, filter: { from }, orderBy: { field: 'ID' } });
    expect(onlyError(byId)).toMatchObject({ path: ['trafficLog'], extensions: { code: 'BAD_USER_INPUT', field: 'orderBy' } });
    const reversed = await stack.query(TrafficWindowIdsDocument, { deviceId: DEVICE, first: 2, filter: { from: to, to: from } });
    expect(onlyError(reversed).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'filter.to' });
    expect(stack.proxy.lines()).toEqual([]);
    // The default order (DATE_TIME, newest first) takes a window.
    const newest = expectNoErrors(await stack.query(TrafficWindowIdsDocument, { deviceId: DEVICE, first: 2, filter: { from, to } })).trafficLog!;
    expect(newest.nodes.map((n) => n.id)).toEqual(inWindow(entries, from, to).reverse().slice(0, 2));
  });
});

describe('extensions.cost of a window', () => {
  it('counts the search of its bounds before it runs', async () => {
    const plain = await stack.query(TrafficWindowIdsDocument, { deviceId: DEVICE, first: 10, orderBy: { field: 'DATE_TIME' } });
    const windowed = await stack.query(TrafficWindowIdsDocument, { deviceId: DEVICE, first: 10, filter: { from: '2026-11-20T00:00:00Z' }, orderBy: { field: 'DATE_TIME' } });
    const cost = (response: typeof plain) => (JSON.parse(response.text) as { extensions: { cost: { estimated: number; upstreamCalls: number } } }).extensions.cost;
    expect(cost(windowed).estimated - cost(plain).estimated).toBe(24);
    expect(cost(windowed).upstreamCalls).toBeLessThanOrEqual(24 + 1);
  });
});

describe('trafficLogEntryAdded from an instant', () => {
  it('replays the entries from `from` on, then follows, leaving out later entries dated before it; `to` is refused', async () => {
    const entries = await ascending();
    const expected = inWindow(entries, SHARED).map(Number).sort((a, b) => a - b);
    const tail = tailClient(stack.gateway.url, { 'x-service-token': TEST_KEYS.admin });
    try {
      const received = tail.subscribe({ deviceId: DEVICE, filter: { from: SHARED } });
      await until(() => received.ids.length >= expected.length, 15_000, 'the replay');
      expect(received.ids).toEqual(expected);
      const rng = createRng(36);
      const backdated = insertTraffic(stack.v1.db, { ...makeLiveTrafficEntry(rng, Number(DEVICE), new Date('2026-11-01T00:00:00Z')), date_time: '2026-11-01T00:00:00Z' });
      const live = insertTraffic(stack.v1.db, makeLiveTrafficEntry(rng, Number(DEVICE), new Date()));
      await until(() => received.ids.includes(live), 15_000, 'the live entry');
      expect(received.ids).not.toContain(backdated);
      expect(received.errors).toEqual([]);
      received.stop();

      const refused = tail.subscribe({ deviceId: DEVICE, filter: { from: SHARED, to: '2026-11-26T00:00:00Z' } });
      await refused.ended;
      expect(refused.errors.map((e) => [e.extensions?.code, e.extensions?.field])).toEqual([['BAD_USER_INPUT', 'filter.to']]);
    } finally {
      await tail.dispose();
    }
  });
});
