// Protection devices end to end: the gateway's `protectionDevices` and `protectionDevice` against
// what the v1 service holds, asked of the v1 service directly over HTTP with the same key. Every
// field of every device, walks over whole lists both ways under every order and several filters,
// page limits, empty lists, cursor misuse, and lookups by id across organizations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeviceDocument,
  DeviceIdsDocument,
  DevicesDocument,
  type DevicesQuery,
  type OrderDirection,
  type ProtectionDeviceFilter,
  type ProtectionDeviceOrderField,
} from '../../generated/operations.ts';
import { DEMO_ADMIN_KEY, onlyError, startStack, type GraphQLResponse, type Stack } from '../../helpers/gateway.ts';
import { checkPageShape, expectNoErrors, expectOneError, expectPageSizeRefused, walkBothWays, type PageArgs } from '../../helpers/connection-checks.ts';
import * as oracle from '../../helpers/oracle.ts';
import { v1Request } from '../../helpers/v1.ts';

const ORG1_KEY = 'demo-org1-key-acme';
const SEED = { devices: 60, traffic: 600, hotTraffic: 150 };
// More devices than the default page of 50, and a page size that divides none of the totals.
const PAGE = 7;

interface WireDevice {
  id: number;
  organization: { id: number; name: string; logo: string };
  atb_key: string;
  type: string;
  email: string;
  check: {
    stat: { vpn: number; dnsbl: number; iplist: number; datetime: string };
    status: number;
    web_stat: { datetime: string; waf_protection: number; total_managed_requests: number }[];
    chart_stat: { bucket_start: number; bucket_end: number; total_requests: number; malicious_requests: number }[];
  };
  plugin: { name: string; config: Record<string, unknown> };
  endpoint: string;
  privateIP: string;
  services: string[];
  device_id: string;
}

type GatewayDevice = NonNullable<DevicesQuery['protectionDevices']>['nodes'][number];

/** The GraphQL shape of a v1 device: the tests' one oracle (test/helpers/oracle.ts). */
const expectedDevice = (d: WireDevice): GatewayDevice => oracle.protectionDevice(d as unknown as oracle.V1Device) as GatewayDevice;

const WIRE_ORDER: Record<ProtectionDeviceOrderField, string> = {
  ID: 'id',
  TYPE: 'type',
  EMAIL: 'email',
  DEVICE_ID: 'device_id',
  ENDPOINT: 'endpoint',
  PRIVATE_IP: 'privateIP',
  ATB_KEY: 'atb_key',
  ORGANIZATION: 'organization',
};
const ORDER_FIELDS = Object.keys(WIRE_ORDER) as ProtectionDeviceOrderField[];
const DIRECTIONS: OrderDirection[] = ['ASC', 'DESC'];

interface ListQuery {
  filter?: ProtectionDeviceFilter;
  orderBy?: { field: ProtectionDeviceOrderField; direction: OrderDirection };
}

/** The same list asked of the v1 service (operation 7), whole. */
async function v1Devices(stack: Stack, { filter, orderBy }: ListQuery = {}, token = DEMO_ADMIN_KEY) {
  const query = new URLSearchParams({ limit: '500' });
  if (orderBy) query.set('order', (orderBy.direction === 'DESC' ? '-' : '') + WIRE_ORDER[orderBy.field]);
  if (filter?.organizationId != null) query.set('organization', String(filter.organizationId));
  for (const service of filter?.services ?? []) query.append('services', service);
  const response = await v1Request(stack.v1, 'GET', `/api/v1/atb?${query}`, { token });
  expect(response.status).toBe(200);
  const body = response.json as { total: number; data: WireDevice[] };
  expect(body.data).toHaveLength(body.total);
  return body;
}


/** Walks the device list under `query` both ways, `PAGE` at a time. */
function walkDevicesBothWays(stack: Stack, query: ListQuery, expected: string[], label: string) {
  const ask = async (args: PageArgs) => expectNoErrors(await stack.query(DeviceIdsDocument, { ...args, ...query })).protectionDevices!;
  return walkBothWays(ask, expected, PAGE, label);
}

let stack: Stack;
let all: WireDevice[];

beforeAll(async () => {
  stack = await startStack({ v1: { seedSizes: SEED } });
  all = (await v1Devices(stack)).data;
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

describe('protectionDevices: fields and default page', () => {
  it('the seeded list is larger than the default page and spans every organization', () => {
    expect(all).toHaveLength(SEED.devices);
    expect(new Set(all.map((d) => d.organization.id))).toEqual(new Set([1, 2, 3]));
  });

  it('gives 50 devices by default, in id order, every field as v1 holds it', async () => {
    const page = expectNoErrors(await stack.query(DevicesDocument, {})).protectionDevices!;
    const expected = all.slice(0, 50).map(expectedDevice);
    expect(page.nodes).toEqual(expected);
    expect(page.edges.map((e) => e.node)).toEqual(expected);
    expect(page.totalCount).toBe(SEED.devices);
    expect(page.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(page.pageInfo.startCursor).toBe(page.edges[0]!.cursor);
    expect(page.pageInfo.endCursor).toBe(page.edges[49]!.cursor);
  });

  it('every field of every device equals v1, page after page', async () => {
    const seen: GatewayDevice[] = [];
    let after: string | null = null;
    for (let step = 0; step < 10; step++) {
      const response: GraphQLResponse<DevicesQuery> = await stack.query(DevicesDocument, { first: 23, ...(after ? { after } : {}) });
      const page = expectNoErrors(response).protectionDevices!;
      expect(page.nodes).toEqual(page.edges.map((e) => e.node));
      seen.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(all.map(expectedDevice));
  });
});

describe('v1 orders and filters devices as its contract says', () => {
  // The gateway walks below compare with v1's own order; this pins that order to rest-v1.md
  // (ties by id ascending in both directions; services match any).
  const key = (d: WireDevice, field: ProtectionDeviceOrderField): string | number =>
    ({
      ID: d.id,
      TYPE: d.type,
      EMAIL: d.email,
      DEVICE_ID: d.device_id,
      ENDPOINT: d.endpoint,
      PRIVATE_IP: d.privateIP,
      ATB_KEY: d.atb_key,
      ORGANIZATION: d.organization.id,
    })[field];
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

  for (const field of ORDER_FIELDS) {
    for (const direction of DIRECTIONS) {
      it(`${field} ${direction} with services [waf, cdn]`, async () => {
        const services = ['waf', 'cdn'];
        const got = await v1Devices(stack, { orderBy: { field, direction }, filter: { services } });
        const sign = direction === 'DESC' ? -1 : 1;
        const expected = all
          .filter((d) => d.services.some((s) => services.includes(s)))
          .sort((a, b) => sign * compare(key(a, field), key(b, field)) || a.id - b.id)
          .map((d) => d.id);
        expect(got.data.map((d) => d.id)).toEqual(expected);
        expect(got.total).toBe(expected.length);
      });
    }
  }
});

describe('protectionDevices: walks over the whole list', () => {
  for (const field of ORDER_FIELDS) {
    for (const direction of DIRECTIONS) {
      it(`orderBy ${field} ${direction}`, async () => {
        const query: ListQuery = { orderBy: { field, direction } };
        const v1 = await v1Devices(stack, query);
        expect(v1.total).toBe(SEED.devices);
        await walkDevicesBothWays(stack, query, v1.data.map((d) => String(d.id)), `${field} ${direction}`);
      });
    }
  }

  const filtered: { name: string; query: ListQuery }[] = [
    { name: 'organization 1', query: { filter: { organizationId: '1' } } },
    { name: 'organization 2 by TYPE DESC', query: { filter: { organizationId: '2' }, orderBy: { field: 'TYPE', direction: 'DESC' } } },
    { name: 'organization 3 by ENDPOINT ASC', query: { filter: { organizationId: '3' }, orderBy: { field: 'ENDPOINT', direction: 'ASC' } } },
    { name: 'one service', query: { filter: { services: ['waf'] } } },
    { name: 'one service by EMAIL DESC', query: { filter: { services: ['ddos'] }, orderBy: { field: 'EMAIL', direction: 'DESC' } } },
    { name: 'several services by ORGANIZATION DESC', query: { filter: { services: ['waf', 'cdn'] }, orderBy: { field: 'ORGANIZATION', direction: 'DESC' } } },
    { name: 'several services by ATB_KEY ASC', query: { filter: { services: ['bot_protection', 'api_protection', 'rate_limiting'] }, orderBy: { field: 'ATB_KEY', direction: 'ASC' } } },
    { name: 'organization and services by DEVICE_ID DESC', query: { filter: { organizationId: '1', services: ['waf', 'ddos'] }, orderBy: { field: 'DEVICE_ID', direction: 'DESC' } } },
  ];
  for (const { name, query } of filtered) {
    it(`filter: ${name}`, async () => {
      const v1 = await v1Devices(stack, query);
      // A filter that keeps everything or nothing would not test it.
      expect(v1.total).toBeGreaterThan(PAGE);
      expect(v1.total).toBeLessThan(SEED.devices);
      await walkDevicesBothWays(stack, query, v1.data.map((d) => String(d.id)), name);
    });
  }

  it('last without before gives the last page', async () => {
    const page = expectNoErrors(await stack.query(DeviceIdsDocument, { last: PAGE })).protectionDevices!;
    expect(page.nodes.map((n) => n.id)).toEqual(all.slice(-PAGE).map((d) => String(d.id)));
    expect(page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(page.totalCount).toBe(SEED.devices);
    checkPageShape(page, 'last page');
  });

  it('after and before together give the window between them, exact page info', async () => {
    const ids = all.map((d) => String(d.id));
    const cursors = expectNoErrors(await stack.query(DeviceIdsDocument, { first: 30 })).protectionDevices!.edges.map((e) => e.cursor);
    const window = { after: cursors[4]!, before: cursors[20]! };
    const head = expectNoErrors(await stack.query(DeviceIdsDocument, { first: 5, ...window })).protectionDevices!;
    expect(head.nodes.map((n) => n.id)).toEqual(ids.slice(5, 10));
    expect(head.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    expect(head.edges.map((e) => e.cursor)).toEqual(cursors.slice(5, 10));
    const tail = expectNoErrors(await stack.query(DeviceIdsDocument, { last: 5, ...window })).protectionDevices!;
    expect(tail.nodes.map((n) => n.id)).toEqual(ids.slice(15, 20));
    expect(tail.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    const whole = expectNoErrors(await stack.query(DeviceIdsDocument, { first: 100, ...window })).protectionDevices!;
    expect(whole.nodes.map((n) => n.id)).toEqual(ids.slice(5, 20));
    checkPageShape(whole, 'window');
  });

  it('first: 100 and first: 1 are accepted', async () => {
    const big = expectNoErrors(await stack.query(DeviceIdsDocument, { first: 100 })).protectionDevices!;
    expect(big.nodes.map((n) => n.id)).toEqual(all.map((d) => String(d.id)));
    expect(big.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    const one = expectNoErrors(await stack.query(DeviceIdsDocument, { last: 1 })).protectionDevices!;
    expect(one.nodes.map((n) => n.id)).toEqual([String(all.at(-1)!.id)]);
    expect(one.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it('an empty result has no edges, null cursors and totalCount 0', async () => {
    const query: ListQuery = { filter: { services: ['no-such-service'] } };
    expect((await v1Devices(stack, query)).total).toBe(0);
    for (const args of [{}, { first: 5 }, { last: 5 }]) {
      const page = expectNoErrors(await stack.query(DeviceIdsDocument, { ...args, ...query })).protectionDevices!;
      expect(page).toEqual({
        edges: [],
        nodes: [],
        pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
        totalCount: 0,
      });
    }
  });
});

describe('protectionDevices: bad arguments', () => {
  for (const args of [{ first: 0 }, { first: 101 }, { last: 0 }, { last: 101 }, { first: -1 }]) {
    it(`${JSON.stringify(args)} is BAD_USER_INPUT before any upstream call`, async () => {
      const [argument, value] = Object.entries(args)[0] as ['first' | 'last', number];
      stack.proxy.reset();
      const response = await stack.query(DeviceIdsDocument, args);
      expectPageSizeRefused(response, argument, value, 'Query.protectionDevices');
      expect(stack.proxy.calls).toEqual([]);
    });
  }

  it('a cursor is refused under another filter, order or direction, without an upstream call', async () => {
    const made: ListQuery = { filter: { organizationId: '1', services: ['waf', 'cdn'] }, orderBy: { field: 'TYPE', direction: 'ASC' } };
    const page = expectNoErrors(await stack.query(DeviceIdsDocument, { first: 3, ...made })).protectionDevices!;
    expect(page.pageInfo.hasNextPage).toBe(true);
    const cursor = page.pageInfo.endCursor!;
    const others: { name: string; query: ListQuery }[] = [
      { name: 'no filter', query: { orderBy: made.orderBy! } },
      { name: 'another organization', query: { ...made, filter: { ...made.filter, organizationId: '2' } } },
      { name: 'no organization', query: { ...made, filter: { services: ['waf', 'cdn'] } } },
      { name: 'other services', query: { ...made, filter: { organizationId: '1', services: ['waf'] } } },
      { name: 'another order', query: { ...made, orderBy: { field: 'EMAIL', direction: 'ASC' } } },
      { name: 'the default order', query: { filter: made.filter! } },
      { name: 'another direction', query: { ...made, orderBy: { field: 'TYPE', direction: 'DESC' } } },
    ];
    for (const { name, query } of others) {
      for (const args of [{ first: 3, after: cursor }, { last: 3, before: cursor }]) {
        stack.proxy.reset();
        const response = await stack.query(DeviceIdsDocument, { ...args, ...query });
        expectOneError(response, 'BAD_USER_INPUT', ['protectionDevices']);
        expect(stack.proxy.calls, name).toEqual([]);
      }
    }
  });

  it('the same filter and order spelled another way keep the cursor valid', async () => {
    const made: ListQuery = { filter: { services: ['waf', 'cdn'] } };
    const page = expectNoErrors(await stack.query(DeviceIdsDocument, { first: 3, ...made })).protectionDevices!;
    const v1 = (await v1Devices(stack, made)).data.map((d) => String(d.id));
    const next = expectNoErrors(
      await stack.query(DeviceIdsDocument, {
        first: 3,
        after: page.pageInfo.endCursor!,
        filter: { services: ['cdn', 'waf'] },
        orderBy: { field: 'ID', direction: 'ASC' },
      }),
    ).protectionDevices!;
    expect(next.nodes.map((n) => n.id)).toEqual(v1.slice(3, 6));
  });

  it('a garbage cursor is BAD_USER_INPUT without an upstream call', async () => {
    const foreign = Buffer.from(JSON.stringify([1, 3, 'AAAAAAAAAAAA'])).toString('base64url');
    for (const cursor of ['abc', 'not a cursor!', 'Zm9v', foreign, 'x'.repeat(500)]) {
      for (const args of [{ after: cursor }, { before: cursor }, { first: 2, after: cursor }]) {
        stack.proxy.reset();
        const response = await stack.query(DeviceIdsDocument, args);
        expectOneError(response, 'BAD_USER_INPUT', ['protectionDevices']);
        expect(stack.proxy.calls, cursor).toEqual([]);
      }
    }
  });
});

describe('protectionDevices with an organization key', () => {
  it("lists only the key's organization", async () => {
    const v1 = await v1Devices(stack, {}, ORG1_KEY);
    expect(v1.data.every((d) => d.organization.id === 1)).toBe(true);
    expect(v1.total).toBe(all.filter((d) => d.organization.id === 1).length);
    const page = expectNoErrors(await stack.query(DevicesDocument, { first: 100 }, { key: ORG1_KEY })).protectionDevices!;
    expect(page.nodes).toEqual(v1.data.map(expectedDevice));
    expect(page.totalCount).toBe(v1.total);
  });

  it('naming another organization in the filter is FORBIDDEN', async () => {
    const response = await stack.query(DeviceIdsDocument, { filter: { organizationId: '2' } }, { key: ORG1_KEY });
    expectOneError(response, 'FORBIDDEN', ['protectionDevices']);
    expect(response.data).toEqual({ protectionDevices: null });
  });
});

describe('protectionDevice(id)', () => {
  it('finds each device with the fields the list gives', async () => {
    const list = expectNoErrors(await stack.query(DevicesDocument, { first: 100 })).protectionDevices!.nodes;
    for (const device of [all[0]!, all[17]!, all.at(-1)!]) {
      const found = expectNoErrors(await stack.query(DeviceDocument, { id: String(device.id) })).protectionDevice;
      expect(found).toEqual(expectedDevice(device));
      expect(found).toEqual(list.find((d) => d.id === String(device.id)));
    }
  });

  it('is null without an error for an unknown id; "abc" is BAD_USER_INPUT naming the argument, without an upstream call', async () => {
    for (const id of ['9999', String(SEED.devices + 1)]) {
      const response = await stack.query(DeviceDocument, { id });
      expect(expectNoErrors(response)).toEqual({ protectionDevice: null });
    }
    for (const id of ['abc', '0', '-1', '1.5']) {
      stack.proxy.reset();
      const response = await stack.query(DeviceDocument, { id });
      expect(response.data, id).toEqual({ protectionDevice: null });
      const error = onlyError(response);
      expect(error.extensions?.code, id).toBe('BAD_USER_INPUT');
      expect(error.extensions?.field, id).toBe('id');
      expect(error.message, id).toContain('id must be a positive integer id');
      expect(stack.proxy.calls, id).toEqual([]);
    }
  });

  it("is null for another organization's device with an organization key, found for its own", async () => {
    const other = all.find((d) => d.organization.id === 2)!;
    const own = all.find((d) => d.organization.id === 1)!;
    expect(expectNoErrors(await stack.query(DeviceDocument, { id: String(other.id) }, { key: ORG1_KEY }))).toEqual({ protectionDevice: null });
    expect(expectNoErrors(await stack.query(DeviceDocument, { id: String(own.id) }, { key: ORG1_KEY })).protectionDevice).toEqual(
      expectedDevice(own),
    );
  });
});
