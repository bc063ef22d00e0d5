// Traffic logs end to end: `trafficLog(deviceId, ...)` and `ProtectionDevice.traffic(...)` against
// what the v1 service holds (operation 8), asked of it directly over HTTP with the same key. Every
// field of the entries, walks both ways under every order and under filters, the actions and
// search filters (also checked against rest-v1.md's rules), errors and cursor misuse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeviceIdsDocument,
  DeviceTrafficIdsDocument,
  DeviceWithTrafficDocument,
  TrafficIdsDocument,
  TrafficLogDocument,
  type OrderDirection,
  type TrafficIdsQuery,
  type TrafficLogFilter,
  type TrafficLogOrderField,
  type TrafficLogQuery,
} from '../../generated/operations.ts';
import { DEMO_ADMIN_KEY, startStack, type GraphQLResponse, type Stack } from '../../helpers/gateway.ts';
import { checkPageShape, expectNoErrors, expectOneError, expectPageSizeRefused, walkBothWays, type PageArgs } from '../../helpers/connection-checks.ts';
import * as oracle from '../../helpers/oracle.ts';
import { v1Request } from '../../helpers/v1.ts';

const ORG1_KEY = 'demo-org1-key-acme';
// Hot entries all land on device 1 (organization 1): about 170 entries there, about 20 elsewhere.
const SEED = { devices: 30, traffic: 600, hotTraffic: 150 };
const HOT = '1';
const PAGE = 7;

interface WireEntry {
  id: number;
  date_time: string;
  type: string;
  src_ip: string;
  dest_ip: string;
  dest_port: string;
  log_message: string;
  extra: Record<string, string>;
}

type GatewayEntry = NonNullable<TrafficLogQuery['trafficLog']>['nodes'][number];


/** The GraphQL shape of a v1 traffic entry: the tests' one oracle (test/helpers/oracle.ts). */
const expectedEntry = (e: WireEntry): GatewayEntry => oracle.trafficLogEntry(e);

const WIRE_ORDER: Record<TrafficLogOrderField, keyof WireEntry> = {
  DATE_TIME: 'date_time',
  ID: 'id',
  TYPE: 'type',
  SRC_IP: 'src_ip',
  DEST_IP: 'dest_ip',
  DEST_PORT: 'dest_port',
};
const ORDER_FIELDS = Object.keys(WIRE_ORDER) as TrafficLogOrderField[];
const DIRECTIONS: OrderDirection[] = ['ASC', 'DESC'];

interface TrafficQuery {
  filter?: TrafficLogFilter;
  orderBy?: { field: TrafficLogOrderField; direction?: OrderDirection };
}

/** The same list asked of the v1 service, whole (one page of up to 1000). */
async function v1Traffic(stack: Stack, deviceId: string, { filter, orderBy }: TrafficQuery = {}, token = DEMO_ADMIN_KEY) {
  const query = new URLSearchParams({ limit: '1000' });
  if (orderBy) query.set('order', ((orderBy.direction ?? 'DESC') === 'DESC' ? '-' : '') + WIRE_ORDER[orderBy.field]);
  for (const action of filter?.actions ?? []) query.append('actions[]', action);
  if (filter?.search != null) query.set('search', filter.search);
  const response = await v1Request(stack.v1, 'GET', `/api/v1/atb/${deviceId}/traffic?${query}`, { token });
  expect(response.status).toBe(200);
  const body = response.json as { total: number; data: WireEntry[] };
  expect(body.data).toHaveLength(body.total);
  return body;
}

let stack: Stack;
/** Device 1's whole log, newest first, as v1 holds it. */
let hot: WireEntry[];

const trafficLog = (deviceId: string, query: TrafficQuery) => async (args: PageArgs) =>
  expectNoErrors(await stack.query(TrafficIdsDocument, { deviceId, ...query, ...args })).trafficLog!;

const deviceTraffic = (id: string, query: TrafficQuery) => async (args: PageArgs) => {
  const device = expectNoErrors(await stack.query(DeviceTrafficIdsDocument, { id, ...query, ...args })).protectionDevice;
  expect(device?.id).toBe(id);
  return device!.traffic!;
};

beforeAll(async () => {
  stack = await startStack({ v1: { seedSizes: SEED } });
  hot = (await v1Traffic(stack, HOT)).data;
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

describe('entries and the default page', () => {
  it('device 1 holds the hot entries, newest first', () => {
    expect(hot.length).toBeGreaterThanOrEqual(SEED.hotTraffic);
    for (let i = 1; i < hot.length; i++) expect(hot[i - 1]!.date_time >= hot[i]!.date_time).toBe(true);
  });

  it('gives the 10 newest entries by default, every field as v1 holds it', async () => {
    const v1Default = await v1Request(stack.v1, 'GET', `/api/v1/atb/${HOT}/traffic`, { token: DEMO_ADMIN_KEY });
    expect((v1Default.json.data as WireEntry[]).map((e) => e.id)).toEqual(hot.slice(0, 10).map((e) => e.id));
    const page = expectNoErrors(await stack.query(TrafficLogDocument, { deviceId: HOT })).trafficLog!;
    const expected = hot.slice(0, 10).map(expectedEntry);
    expect(page.nodes).toEqual(expected);
    expect(page.edges.map((e) => e.node)).toEqual(expected);
    expect(page.totalCount).toBe(hot.length);
    expect(page.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: page.edges[0]!.cursor,
      endCursor: page.edges[9]!.cursor,
    });
  });

  it('ProtectionDevice.traffic is the same connection, cursors included', async () => {
    const direct = expectNoErrors(await stack.query(TrafficLogDocument, { deviceId: HOT, first: 15 })).trafficLog!;
    const nested = expectNoErrors(await stack.query(DeviceWithTrafficDocument, { id: HOT, first: 15 })).protectionDevice;
    expect(nested?.traffic).toEqual(direct);
    // A cursor from one works in the other.
    const next = await deviceTraffic(HOT, {})({ first: 5, after: direct.pageInfo.endCursor! });
    expect(next.nodes.map((n) => n.id)).toEqual(hot.slice(15, 20).map((e) => String(e.id)));
  });

  it('every field of every entry equals v1, on the hot device and on others', async () => {
    for (const deviceId of [HOT, '2', '17']) {
      const v1 = await v1Traffic(stack, deviceId);
      expect(v1.total).toBeGreaterThan(0);
      const seen: GatewayEntry[] = [];
      let after: string | null = null;
      for (let step = 0; step < 5; step++) {
        const response: GraphQLResponse<TrafficLogQuery> = await stack.query(TrafficLogDocument, {
          deviceId,
          first: 100,
          ...(after ? { after } : {}),
        });
        const page = expectNoErrors(response).trafficLog!;
        expect(page.nodes).toEqual(page.edges.map((e) => e.node));
        seen.push(...page.nodes);
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      expect(seen).toEqual(v1.data.map(expectedEntry));
    }
  });

  it('last without before gives the oldest page', async () => {
    const page = expectNoErrors(await stack.query(TrafficIdsDocument, { deviceId: HOT, last: PAGE })).trafficLog!;
    expect(page.nodes.map((n) => n.id)).toEqual(hot.slice(-PAGE).map((e) => String(e.id)));
    expect(page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(page.totalCount).toBe(hot.length);
    checkPageShape(page, 'last page');
  });

  it('an empty result has no edges, null cursors and totalCount 0', async () => {
    const query: TrafficQuery = { filter: { search: 'no-such-thing-anywhere' } };
    expect((await v1Traffic(stack, HOT, query)).total).toBe(0);
    for (const args of [{}, { first: 5 }, { last: 5 }]) {
      const page = expectNoErrors(await stack.query(TrafficIdsDocument, { deviceId: HOT, ...query, ...args })).trafficLog!;
      expect(page).toEqual({
        edges: [],
        nodes: [],
        pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
        totalCount: 0,
      });
    }
  });
});

describe('walks over whole logs', () => {
  it('the hot device, newest first, 7 at a time', async () => {
    await walkBothWays(trafficLog(HOT, {}), hot.map((e) => String(e.id)), PAGE, 'hot device');
  });

  const filtered: { name: string; deviceId: string; query: TrafficQuery; nested?: boolean }[] = [
    { name: 'actions block, challenge', deviceId: HOT, query: { filter: { actions: ['block', 'challenge'] } } },
    { name: 'search 203.0.113 by SRC_IP ASC', deviceId: HOT, query: { filter: { search: '203.0.113' }, orderBy: { field: 'SRC_IP', direction: 'ASC' } } },
    { name: 'actions allow and search GET, from the device', deviceId: HOT, query: { filter: { actions: ['allow'], search: 'GET' } }, nested: true },
    { name: 'another device, from the device', deviceId: '7', query: {}, nested: true },
  ];
  for (const { name, deviceId, query, nested } of filtered) {
    it(name, async () => {
      const v1 = await v1Traffic(stack, deviceId, query);
      expect(v1.total).toBeGreaterThan(PAGE);
      const ask = nested ? deviceTraffic(deviceId, query) : trafficLog(deviceId, query);
      await walkBothWays(ask, v1.data.map((e) => String(e.id)), PAGE, name);
    });
  }
});

describe('orders', () => {
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

  for (const field of ORDER_FIELDS) {
    for (const direction of DIRECTIONS) {
      it(`${field} ${direction} equals v1's order, which follows its contract`, async () => {
        const query: TrafficQuery = { orderBy: { field, direction } };
        const v1 = await v1Traffic(stack, HOT, query);
        // rest-v1.md: ties broken by id in the same direction.
        const sign = direction === 'DESC' ? -1 : 1;
        const key = WIRE_ORDER[field];
        const expected = [...hot]
          .sort((a, b) => sign * (compare(a[key] as string | number, b[key] as string | number) || a.id - b.id))
          .map((e) => e.id);
        expect(v1.data.map((e) => e.id)).toEqual(expected);
        await walkBothWays(trafficLog(HOT, query), expected.map(String), 40, `${field} ${direction}`);
      });
    }
  }

  it('an order without a direction is descending', async () => {
    const v1 = await v1Traffic(stack, HOT, { orderBy: { field: 'DEST_PORT', direction: 'DESC' } });
    const page = expectNoErrors(await stack.query(TrafficIdsDocument, { deviceId: HOT, first: 100, orderBy: { field: 'DEST_PORT' } })).trafficLog!;
    expect(page.nodes.map((n) => n.id)).toEqual(v1.data.slice(0, 100).map((e) => String(e.id)));
  });
});

describe('filters', () => {
  /** rest-v1.md: every term occurs, ignoring case, in one of the searched fields. */
  function matchesSearch(entry: WireEntry, search: string): boolean {
    const haystack = [entry.log_message, entry.src_ip, entry.dest_ip, entry.dest_port, entry.type, ...Object.values(entry.extra)].map((s) =>
      s.toLowerCase(),
    );
    return search
      .split(/\s+/)
      .filter(Boolean)
      .every((term) => haystack.some((field) => field.includes(term.toLowerCase())));
  }

  function matchesActions(entry: WireEntry, actions: string[]): boolean {
    return actions.some((a) => a.toLowerCase() === entry.extra.action?.toLowerCase());
  }

  /** The gateway's whole list for the filter equals v1's, and v1's follows its contract. */
  async function checkFilter(deviceId: string, filter: TrafficLogFilter, whole: WireEntry[]) {
    const label = JSON.stringify(filter);
    const v1 = await v1Traffic(stack, deviceId, { filter });
    const expected = whole
      .filter((e) => (filter.actions ? matchesActions(e, filter.actions) : true))
      .filter((e) => (filter.search != null ? matchesSearch(e, filter.search) : true))
      .map((e) => e.id);
    expect(v1.data.map((e) => e.id), `v1 ${label}`).toEqual(expected);
    const ids: string[] = [];
    let after: string | null = null;
    for (let step = 0; step < 5; step++) {
      const response: GraphQLResponse<TrafficIdsQuery> = await stack.query(TrafficIdsDocument, {
        deviceId,
        first: 100,
        filter,
        ...(after ? { after } : {}),
      });
      const page = expectNoErrors(response).trafficLog!;
      expect(page.totalCount, label).toBe(v1.total);
      ids.push(...page.nodes.map((n) => n.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(ids, `gateway ${label}`).toEqual(expected.map(String));
    return expected.length;
  }

  it('actions, several and in any case, give exactly what v1 gives', async () => {
    const counts: Record<string, number> = {};
    for (const actions of [['block'], ['BLOCK', 'Challenge'], ['allow', 'log', 'block', 'challenge'], ['Block', 'block'], ['LOG'], ['none-such']]) {
      counts[actions.join()] = await checkFilter(HOT, { actions }, hot);
    }
    expect(counts['block']).toBeGreaterThan(0);
    expect(counts['BLOCK,Challenge']).toBeGreaterThan(counts['block']!);
    expect(counts['allow,log,block,challenge']).toBe(hot.length);
    expect(counts['Block,block']).toBe(counts['block']);
    expect(counts['none-such']).toBe(0);
  });

  const searches = [
    '203.0.113',
    '203.0.113 UFW',
    'ufw block',
    '   GET    HTTP/1.1  ',
    'Mozilla\tFirefox',
    'modsecurity CRITICAL attack',
    'nginx_access 404',
    'waf 443',
    '443',
    'call_user_func',
    '%5C',
    '"GET',
    'ge',
    'a ge',
    '_ call',
    '% 5c',
    'OR',
    'NEAR',
    '* waf',
    'log4j',
    '',
    '  \t ',
  ];
  it('search terms give exactly what v1 gives, and what its contract says', async () => {
    const counts: Record<string, number> = {};
    for (const search of searches) counts[search] = await checkFilter(HOT, { search }, hot);
    // The terms were chosen to hit: a filter that finds nothing would test little.
    for (const search of ['203.0.113', 'ufw block', '   GET    HTTP/1.1  ', 'waf 443', 'ge']) {
      expect(counts[search], search).toBeGreaterThan(0);
    }
    expect(counts['203.0.113 UFW']).toBeLessThan(counts['203.0.113']!);
    // No term at all is no filter.
    expect(counts['']).toBe(hot.length);
    expect(counts['  \t ']).toBe(hot.length);
  });

  it('search and actions together, on the hot device and another', async () => {
    const other = (await v1Traffic(stack, '4')).data;
    expect(other.length).toBeGreaterThan(0);
    for (const filter of [
      { actions: ['block'], search: '203.0.113' },
      { actions: ['ALLOW', 'log'], search: 'get' },
    ]) {
      await checkFilter(HOT, filter, hot);
      await checkFilter('4', filter, other);
    }
  });

  it('odd spacing in the search gives the same entries as single spaces', async () => {
    const tidy = expectNoErrors(await stack.query(TrafficIdsDocument, { deviceId: HOT, first: 100, filter: { search: '203.0.113 ufw' } })).trafficLog!;
    const odd = expectNoErrors(
      await stack.query(TrafficIdsDocument, { deviceId: HOT, first: 100, filter: { search: ' \t 203.0.113 \n  ufw   ' } }),
    ).trafficLog!;
    expect(tidy.totalCount).toBeGreaterThan(0);
    expect(odd.nodes).toEqual(tidy.nodes);
    expect(odd.totalCount).toBe(tidy.totalCount);
  });
});

describe('errors', () => {
  it('an unknown device is NOT_FOUND at trafficLog', async () => {
    for (const deviceId of ['9999', String(SEED.devices + 1)]) {
      const response = await stack.query(TrafficIdsDocument, { deviceId });
      expectOneError(response, 'NOT_FOUND', ['trafficLog']);
      expect(response.data).toEqual({ trafficLog: null });
    }
  });

  it('a device id that is not a positive integer is BAD_USER_INPUT without an upstream call', async () => {
    for (const deviceId of ['abc', '0', '-3']) {
      stack.proxy.reset();
      const response = await stack.query(TrafficIdsDocument, { deviceId });
      expectOneError(response, 'BAD_USER_INPUT', ['trafficLog']);
      expect(stack.proxy.calls).toEqual([]);
    }
  });

  it("another organization's device is NOT_FOUND with an organization key; its own is listed", async () => {
    const response = await stack.query(TrafficIdsDocument, { deviceId: '2' }, { key: ORG1_KEY });
    expectOneError(response, 'NOT_FOUND', ['trafficLog']);
    expect(response.data).toEqual({ trafficLog: null });
    const own = expectNoErrors(await stack.query(TrafficLogDocument, { deviceId: HOT, first: 20 }, { key: ORG1_KEY })).trafficLog!;
    expect(own.nodes).toEqual(hot.slice(0, 20).map(expectedEntry));
    expect(own.totalCount).toBe(hot.length);
  });

  for (const args of [{ first: 0 }, { first: 101 }, { last: 0 }, { last: 101 }]) {
    it(`${JSON.stringify(args)} is BAD_USER_INPUT before any upstream call, on both fields`, async () => {
      const [argument, value] = Object.entries(args)[0] as ['first' | 'last', number];
      stack.proxy.reset();
      const response = await stack.query(TrafficIdsDocument, { deviceId: HOT, ...args });
      expectPageSizeRefused(response, argument, value, 'Query.trafficLog');
      expect(stack.proxy.calls).toEqual([]);

      // Refused whole before the device is looked up, not only at its traffic.
      const nested = await stack.query(DeviceTrafficIdsDocument, { id: HOT, ...args });
      expectPageSizeRefused(nested, argument, value, 'ProtectionDevice.traffic');
      expect(stack.proxy.calls).toEqual([]);
    });
  }
});

describe('cursor misuse', () => {
  const made: TrafficQuery = { filter: { actions: ['block', 'challenge'], search: '203.0.113' }, orderBy: { field: 'DATE_TIME', direction: 'DESC' } };
  let cursor: string;

  beforeAll(async () => {
    const page = expectNoErrors(await stack.query(TrafficIdsDocument, { deviceId: HOT, first: 3, ...made })).trafficLog!;
    expect(page.pageInfo.hasNextPage).toBe(true);
    cursor = page.pageInfo.endCursor!;
  });

  const others: { name: string; deviceId: string; query: TrafficQuery }[] = [
    { name: 'another device', deviceId: '2', query: made },
    { name: 'no filter', deviceId: HOT, query: { orderBy: made.orderBy! } },
    { name: 'other actions', deviceId: HOT, query: { ...made, filter: { ...made.filter, actions: ['block'] } } },
    { name: 'no actions', deviceId: HOT, query: { ...made, filter: { search: '203.0.113' } } },
    { name: 'another search', deviceId: HOT, query: { ...made, filter: { ...made.filter, search: '198.51.100' } } },
    { name: 'no search', deviceId: HOT, query: { ...made, filter: { actions: ['block', 'challenge'] } } },
    { name: 'another order', deviceId: HOT, query: { ...made, orderBy: { field: 'ID', direction: 'DESC' } } },
    { name: 'another direction', deviceId: HOT, query: { ...made, orderBy: { field: 'DATE_TIME', direction: 'ASC' } } },
  ];
  for (const { name, deviceId, query } of others) {
    it(`is BAD_USER_INPUT under ${name}, with no traffic call`, async () => {
      for (const args of [{ first: 3, after: cursor }, { last: 3, before: cursor }]) {
        stack.proxy.reset();
        const response = await stack.query(TrafficIdsDocument, { deviceId, ...query, ...args });
        expectOneError(response, 'BAD_USER_INPUT', ['trafficLog']);
        expect(stack.proxy.calls).toEqual([]);

        stack.proxy.reset();
        const nested = await stack.query(DeviceTrafficIdsDocument, { id: deviceId, ...query, ...args });
        expectOneError(nested, 'BAD_USER_INPUT', ['protectionDevice', 'traffic']);
        expect(stack.proxy.calls.filter((c) => c.path.endsWith('/traffic'))).toEqual([]);
      }
    });
  }

  it('is accepted with the same filter spelled another way', async () => {
    const v1 = await v1Traffic(stack, HOT, made);
    const page = expectNoErrors(
      await stack.query(TrafficIdsDocument, {
        deviceId: HOT,
        first: 3,
        after: cursor,
        filter: { actions: ['challenge', 'block'], search: '  203.0.113 ' },
      }),
    ).trafficLog!;
    expect(page.nodes.map((n) => n.id)).toEqual(v1.data.slice(3, 6).map((e) => String(e.id)));
  });

  it('a garbage cursor, or a device list cursor, is BAD_USER_INPUT without an upstream call', async () => {
    const devices = expectNoErrors(await stack.query(DeviceIdsDocument, { first: 2 })).protectionDevices!;
    const foreign = Buffer.from(JSON.stringify([1, 3, 'AAAAAAAAAAAA'])).toString('base64url');
    for (const bad of ['abc', 'not a cursor!', 'Zm9v', foreign, devices.pageInfo.endCursor!]) {
      for (const args of [{ after: bad }, { before: bad }, { last: 2, before: bad }]) {
        stack.proxy.reset();
        const response = await stack.query(TrafficIdsDocument, { deviceId: HOT, ...args });
        expectOneError(response, 'BAD_USER_INPUT', ['trafficLog']);
        expect(stack.proxy.calls, bad).toEqual([]);
      }
    }
  });
});
