// The per-request loaders, seen where their calls land: the counting proxy between the gateway
// and the v1 service records every upstream call of an operation. Lookups by id read the list in
// id order a page of one at a time and share what they read (test/integration/gateway/device-lookup.test.ts
// holds them on a large list), a page primes the lookups of its devices, identical pages are
// fetched once, and the dashboard shape costs one call per device rather than one per field.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DeviceLookups25Document,
  DevicePageAndLookupsDocument,
  DevicesWithNewestTrafficDocument,
  FrameworkLookupsDocument,
  TrafficTwiceDocument,
  type DeviceLookups25QueryVariables,
} from '../../generated/operations.ts';
import { DEMO_ADMIN_KEY, startStack, type Stack } from '../../helpers/gateway.ts';
import { expectNoErrors } from '../../helpers/connection-checks.ts';
import type { ProxiedCall } from '../../helpers/counting-proxy.ts';
import { v1Request } from '../../helpers/v1.ts';

// More devices than v1's largest page (500), so that reading them all takes two pages.
const SEED = { devices: 520, traffic: 2600, hotTraffic: 150 };
const SCAN_PAGE = 500;

let stack: Stack;
let deviceIds: number[];

beforeAll(async () => {
  stack = await startStack({ v1: { seedSizes: SEED } });
  deviceIds = [];
  for (const offset of [0, SCAN_PAGE]) {
    const devices = await v1Request(stack.v1, 'GET', `/api/v1/atb?limit=${SCAN_PAGE}&offset=${offset}`, { token: DEMO_ADMIN_KEY });
    deviceIds.push(...(devices.json.data as { id: number }[]).map((d) => d.id));
  }
  expect(deviceIds).toHaveLength(SEED.devices);
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

beforeEach(() => {
  stack.proxy.reset();
});

/** A call as `METHOD path` plus its query as sorted pairs, so that parameter order does not matter. */
function describeCall(call: ProxiedCall) {
  return { method: call.method, path: call.path, query: [...call.query.entries()].sort() };
}

/** Every call a page of one of the list in id order, none twice; how many there were. */
function expectPagesOfOne(calls: ProxiedCall[]): number {
  for (const call of calls) {
    expect(describeCall(call)).toEqual({ method: 'GET', path: '/api/v1/atb', query: [['limit', '1'], ['offset', expect.any(String)], ['order', 'id']] });
  }
  expect(new Set(calls.map((call) => call.url)).size).toBe(calls.length);
  return calls.length;
}

describe('loaders', () => {
  /** The variables of DeviceLookups25 for 25 ids, and a check of its answer. */
  async function lookUp(ids: string[]) {
    expect(ids).toHaveLength(25);
    const variables = Object.fromEntries(ids.map((id, i) => [`id${String(i + 1).padStart(2, '0')}`, id])) as DeviceLookups25QueryVariables;
    const response = await stack.query(DeviceLookups25Document, variables);
    // An id that cannot be an id is refused, naming its argument; the other lookups still answer.
    const malformed = ids.flatMap((id, i) => (/^[1-9]\d*$/.test(id) ? [] : [`d${String(i + 1).padStart(2, '0')}`]));
    expect((response.errors ?? []).map((error) => [error.path?.[0], error.extensions?.code]), response.text).toEqual(malformed.map((alias) => [alias, 'BAD_USER_INPUT']));
    const data = response.data!;
    ids.forEach((id, i) => {
      const found = data[`d${String(i + 1).padStart(2, '0')}` as keyof typeof data];
      expect(found?.id ?? null, `d${i + 1}`).toBe(deviceIds.includes(Number(id)) && /^\d+$/.test(id) ? id : null);
    });
  }

  /** `count` ids spread evenly over `ids`, first and last included. */
  const spread = (ids: number[], count: number) =>
    Array.from({ length: count }, (_, i) => String(ids[Math.round((i * (ids.length - 1)) / (count - 1))]));

  // The seeded ids are dense: the first guess of each lookup lands on it.
  it('25 lookups by id, a repeated one and one that cannot be an id among them, cost a page of one per distinct id', async () => {
    const some = spread(deviceIds.slice(0, SCAN_PAGE), 23);
    await lookUp([...some, 'abc', some[5]!]);
    expect(expectPagesOfOne(stack.proxy.calls)).toBe(23);
  });

  it('25 lookups spread over the whole list, an unknown id past its end among them: the unknown one costs no call of its own', async () => {
    await lookUp([...spread(deviceIds, 24), '9999']);
    // The first read tells the list's length; the unknown id's read is then the last item, which
    // the lookup of the last device reads too.
    expect(expectPagesOfOne(stack.proxy.calls)).toBe(24);
  });

  it('lookups of devices in a page asked in the same operation cost no extra call', async () => {
    const [a, b, c] = [deviceIds[0], deviceIds[9], deviceIds[19]].map(String) as [string, string, string];
    const data = expectNoErrors(await stack.query(DevicePageAndLookupsDocument, { a, b, c }));
    expect(data.protectionDevices!.nodes.map((n) => n.id)).toEqual(deviceIds.slice(0, 20).map(String));
    expect([data.a?.id, data.b?.id, data.c?.id]).toEqual([a, b, c]);
    expect(stack.proxy.calls.map(describeCall)).toEqual([
      { method: 'GET', path: '/api/v1/atb', query: [['limit', '20'], ['offset', '0'], ['order', 'id']] },
    ]);
  });

  it('the same traffic page under two aliases is fetched once', async () => {
    const data = expectNoErrors(await stack.query(TrafficTwiceDocument));
    expect(data.a!.nodes).toHaveLength(5);
    expect(data.b).toEqual(data.a);
    expect(stack.proxy.calls.map(describeCall)).toEqual([
      { method: 'GET', path: '/api/v1/atb/1/traffic', query: [['limit', '5'], ['offset', '0'], ['order', '-date_time']] },
    ]);
  });

  it('DevicesWithNewestTraffic: one device call and one traffic call per device, none twice', async () => {
    const data = expectNoErrors(await stack.query(DevicesWithNewestTrafficDocument));
    const page = data.protectionDevices!;
    expect(page.nodes.map((n) => n.id)).toEqual(deviceIds.slice(0, 20).map(String));
    expect(page.edges.map((e) => e.node)).toEqual(page.nodes);

    const calls = stack.proxy.calls;
    expect(new Set(calls.map((c) => `${c.method} ${c.url}`)).size).toBe(calls.length);
    const deviceCalls = calls.filter((c) => c.path === '/api/v1/atb');
    const trafficCalls = calls.filter((c) => c.path.endsWith('/traffic'));
    expect(deviceCalls.map(describeCall)).toEqual([
      { method: 'GET', path: '/api/v1/atb', query: [['limit', '20'], ['offset', '0'], ['order', 'id']] },
    ]);
    expect(trafficCalls.map(describeCall).sort((x, y) => x.path.localeCompare(y.path))).toEqual(
      deviceIds
        .slice(0, 20)
        .map((id) => ({ method: 'GET', path: `/api/v1/atb/${id}/traffic`, query: [['limit', '5'], ['offset', '0'], ['order', '-date_time']] }))
        .sort((x, y) => x.path.localeCompare(y.path)),
    );
    expect(calls).toHaveLength(21);

    // And the pages are the devices' newest entries.
    for (const node of page.nodes) {
      const v1 = await v1Request(stack.v1, 'GET', `/api/v1/atb/${node.id}/traffic?limit=5`, { token: DEMO_ADMIN_KEY });
      expect(node.traffic!.nodes.map((e) => e.id), node.id).toEqual((v1.json.data as { id: number }[]).map((e) => String(e.id)));
      expect(node.traffic!.totalCount, node.id).toBe(v1.json.total);
    }
  });

  it('several framework lookups and the list of one organization cost one call', async () => {
    const v1 = await v1Request(stack.v1, 'GET', '/api/v1/organizations/1/security-frameworks', { token: DEMO_ADMIN_KEY });
    const frameworks = v1.json.data as { id: number; title: string }[];
    expect(frameworks.length).toBeGreaterThan(0);
    stack.proxy.reset();
    const [first, last] = [frameworks[0]!, frameworks.at(-1)!];
    const data = expectNoErrors(
      await stack.query(FrameworkLookupsDocument, { organizationId: '1', a: String(first.id), b: String(last.id), c: '9999' }),
    );
    expect(data.securityFrameworks!.nodes).toEqual(frameworks.map((f) => ({ id: String(f.id), title: f.title })));
    expect(data.a).toEqual({ id: String(first.id), title: first.title });
    expect(data.b).toEqual({ id: String(last.id), title: last.title });
    expect(data.c).toBeNull();
    expect(stack.proxy.calls.map(describeCall)).toEqual([{ method: 'GET', path: '/api/v1/organizations/1/security-frameworks', query: [] }]);
  });
});
