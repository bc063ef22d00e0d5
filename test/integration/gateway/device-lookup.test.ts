// protectionDevice(id) on a list of 20,000 devices, over HTTP: v1 has no single-device read, so
// the gateway searches the id-ordered list a page of one at a time (src/gateway/domains/protection-devices/device-search.ts).
// The counting proxy in front of the v1 service counts each lookup's calls, held to 20 for one id
// and 60 for five; every answer is checked against v1's own list. One service has dense ids, the
// other holes: a range deleted and a stretch thinned to odd ids, where guesses miss and the
// search has to bisect. The calls counted are printed at the end.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeviceDocument, DevicePageOfFiveAndLookupDocument, FiveDeviceLookupsDocument, type DeviceQuery } from '../../generated/operations.ts';
import { DEMO_ADMIN_KEY, startGatewayOn, startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';
import { expectNoErrors, expectOneError } from '../../helpers/connection-checks.ts';
import { v1Request } from '../../helpers/v1.ts';

const DEVICES = 20_000;
const SEED = { devices: DEVICES, traffic: 200, hotTraffic: 0 };
const ONE_LOOKUP_MAX_CALLS = 20;
const FIVE_LOOKUPS_MAX_CALLS = 60;

/** The holes of the second service: ids deleted outright, and a stretch where only odd ids stay. */
const DELETED = { from: 5001, to: 12000 };
const THINNED = { from: 14001, to: 17000 };

type Device = NonNullable<DeviceQuery['protectionDevice']>;

interface WireDevice {
  id: number;
  organization: { id: number };
  atb_key: string;
  type: string;
  email: string;
  endpoint: string;
  privateIP: string;
  services: string[];
  device_id: string;
}

let dense: Stack;
let holed: Stack;
/** What each lookup cost, printed once the suite is done. */
const measured: string[] = [];

beforeAll(async () => {
  [dense, holed] = await Promise.all([startStack({ v1: { seedSizes: SEED } }), startStack({ v1: { seedSizes: SEED } })]);
  // Real rows of the service, deleted as a client's deletes would leave them.
  holed.v1.db.prepare('DELETE FROM devices WHERE id BETWEEN ? AND ?').run(DELETED.from, DELETED.to);
  holed.v1.db.prepare('DELETE FROM devices WHERE id BETWEEN ? AND ? AND id % 2 = 0').run(THINNED.from, THINNED.to);
}, 60_000);

afterAll(async () => {
  await Promise.all([dense?.close(), holed?.close()]);
  console.log(`upstream calls per lookup:\n  ${measured.join('\n  ')}`);
});

beforeEach(() => {
  dense.proxy.reset();
  holed.proxy.reset();
});

/** The organization a key sees, as the test service's keys are set (null: every one). */
const KEY_ORGANIZATION: Record<string, number | null> = { [DEMO_ADMIN_KEY]: null, [TEST_KEYS.org1]: 1, [TEST_KEYS.org2]: 2 };

/**
 * The device v1 answers for `id` under `key`, or null: the page of one at the offset the id would
 * have in the key's list. The offset is counted in the database to spare a walk over the list.
 */
async function v1Device(stack: Stack, id: string, key: string): Promise<WireDevice | null> {
  if (!/^[1-9]\d*$/.test(id)) return null;
  const organization = KEY_ORGANIZATION[key];
  const { offset } = stack.v1.db
    .prepare('SELECT count(*) AS offset FROM devices WHERE id < ? AND (? IS NULL OR organization_id = ?)')
    .get(Number(id), organization, organization) as { offset: number };
  const page = await v1Request(stack.v1, 'GET', `/api/v1/atb?limit=1&offset=${offset}&order=id`, { token: key });
  expect(page.status).toBe(200);
  const device = page.json.data[0] as WireDevice | undefined;
  return device?.id === Number(id) ? device : null;
}

/** The fields that tell one device from another, in the gateway's names. */
function identity(device: WireDevice | null) {
  if (!device) return null;
  return {
    id: String(device.id),
    organization: String(device.organization.id),
    atbKey: device.atb_key,
    type: device.type,
    email: device.email,
    endpoint: device.endpoint,
    privateIp: device.privateIP,
    services: device.services,
    deviceId: device.device_id,
  };
}

function identityOf(device: Device | null | undefined) {
  if (!device) return null;
  const { id, organization, atbKey, type, email, endpoint, privateIp, services, deviceId } = device;
  return { id, organization: organization.id, atbKey, type, email, endpoint, privateIp, services, deviceId };
}

/** Every call a page of one of the list in id order, none twice; how many there were. */
function pagesOfOne(stack: Stack): number {
  for (const call of stack.proxy.calls) {
    expect(call.path).toBe('/api/v1/atb');
    expect([...call.query.entries()].sort()).toEqual([['limit', '1'], ['offset', expect.stringMatching(/^\d+$/)], ['order', 'id']]);
  }
  expect(new Set(stack.proxy.lines()).size).toBe(stack.proxy.calls.length);
  return stack.proxy.calls.length;
}

/** Looks one id up, checks the answer against v1's, and returns (and records) the calls it cost. */
async function lookUp(stack: Stack, id: string, key = DEMO_ADMIN_KEY): Promise<number> {
  stack.proxy.reset();
  const data = expectNoErrors(await stack.query(DeviceDocument, { id }, { key }));
  const calls = pagesOfOne(stack);
  expect(identityOf(data.protectionDevice), id).toEqual(identity(await v1Device(stack, id, key)));
  const keyName = key === DEMO_ADMIN_KEY ? 'admin' : Object.entries(TEST_KEYS).find(([, known]) => known === key)?.[0];
  measured.push(`${stack === dense ? 'dense' : 'holed'} ids, ${keyName} key, id ${id}: ${calls}`);
  return calls;
}

/** Looks five ids up in one operation, checks each answer against v1's, and returns the calls. */
async function lookUpFive(stack: Stack, ids: [string, string, string, string, string]): Promise<number> {
  stack.proxy.reset();
  const [a, b, c, d, e] = ids;
  const data = expectNoErrors(await stack.query(FiveDeviceLookupsDocument, { a, b, c, d, e }));
  const calls = pagesOfOne(stack);
  const answers = [data.a, data.b, data.c, data.d, data.e].map(identityOf);
  expect(answers).toEqual(await Promise.all(ids.map(async (id) => identity(await v1Device(stack, id, DEMO_ADMIN_KEY)))));
  measured.push(`${stack === dense ? 'dense' : 'holed'} ids, five in one operation (${ids.join(', ')}): ${calls}`);
  return calls;
}

describe('among 20,000 devices with dense ids', () => {
  it('device 19,998 is found within 20 calls', async () => {
    expect(await lookUp(dense, '19998')).toBeLessThanOrEqual(ONE_LOOKUP_MAX_CALLS);
  });

  it('an id past the end of the list is null within 20 calls; ids that cannot be ids are BAD_USER_INPUT without a call', async () => {
    expect(await lookUp(dense, String(DEVICES + 1))).toBeLessThanOrEqual(ONE_LOOKUP_MAX_CALLS);
    for (const id of ['0', 'abc', '-7', '017']) {
      dense.proxy.reset();
      const response = await dense.query(DeviceDocument, { id });
      expect(response.errors?.map((error) => error.extensions?.code), id).toEqual(['BAD_USER_INPUT']);
      expect(pagesOfOne(dense), id).toBe(0);
    }
  });

  it('five spread ids in one operation: within 60 calls, each the device v1 answers', async () => {
    expect(await lookUpFive(dense, ['17', '5003', '9999', '14002', '19998'])).toBeLessThanOrEqual(FIVE_LOOKUPS_MAX_CALLS);
  });

  it('a lookup of a device on a page of the same operation costs the page alone', async () => {
    const data = expectNoErrors(await dense.query(DevicePageOfFiveAndLookupDocument, { id: '3' }));
    expect(data.protectionDevices?.nodes.map((n) => n.id)).toEqual(['1', '2', '3', '4', '5']);
    expect(identityOf(data.device)).toEqual(identity(await v1Device(dense, '3', DEMO_ADMIN_KEY)));
    expect(dense.proxy.lines()).toEqual(['GET /api/v1/atb?limit=5&offset=0&order=id']);
  });

  it("a lookup beside a page of the same operation starts from what the page told: the list's length", async () => {
    // Alone, an id past the end costs two reads: one past the end, which tells the length, and
    // the last item.
    const data = expectNoErrors(await dense.query(DevicePageOfFiveAndLookupDocument, { id: String(DEVICES + 1) }));
    expect(data.device).toBeNull();
    expect(dense.proxy.lines()).toEqual(['GET /api/v1/atb?limit=5&offset=0&order=id', `GET /api/v1/atb?limit=1&offset=${DEVICES - 1}&order=id`]);
  });

  it("an organization's key searches the list it sees: its own devices are found, another organization's are null, each within 20 calls", async () => {
    const newest = (organization: number) =>
      String((dense.v1.db.prepare('SELECT max(id) AS id FROM devices WHERE organization_id = ?').get(organization) as { id: number }).id);
    const middle = (organization: number) =>
      String(
        (dense.v1.db.prepare('SELECT min(id) AS id FROM devices WHERE organization_id = ? AND id > ?').get(organization, DEVICES / 2) as { id: number }).id,
      );
    for (const [key, own, other] of [
      [TEST_KEYS.org1, 1, 2],
      [TEST_KEYS.org2, 2, 1],
    ] as const) {
      for (const id of [newest(own), middle(own)]) {
        expect(await lookUp(dense, id, key), `${id} with its own organization's key`).toBeLessThanOrEqual(ONE_LOOKUP_MAX_CALLS);
        expect(identityOf(expectNoErrors(await dense.query(DeviceDocument, { id }, { key })).protectionDevice)?.organization).toBe(String(own));
      }
      for (const id of [newest(other), middle(other)]) {
        expect(await lookUp(dense, id, key), `${id} with another organization's key`).toBeLessThanOrEqual(ONE_LOOKUP_MAX_CALLS);
        expect(expectNoErrors(await dense.query(DeviceDocument, { id }, { key })).protectionDevice).toBeNull();
      }
    }
  });
});

describe('among devices with holes in their ids', () => {
  // The edges of the holes, ids inside them, and ids on either side of the thinned stretch.
  const IDS = ['4999', '5001', '8000', '12000', '12001', '13500', '14002', '15501', '16999', '19998', '20001'];

  it('each lookup is within 20 calls, and the device v1 answers or null', async () => {
    for (const id of IDS) expect(await lookUp(holed, id), id).toBeLessThanOrEqual(ONE_LOOKUP_MAX_CALLS);
  });

  it('five spread ids in one operation, two of them in holes: within 60 calls, each the device v1 answers', async () => {
    expect(await lookUpFive(holed, ['3', '8000', '12001', '15502', '19998'])).toBeLessThanOrEqual(FIVE_LOOKUPS_MAX_CALLS);
  });

  it("every read of a search counts against the operation's call budget", async () => {
    const gateway = await startGatewayOn(holed.proxy.url, { MAX_UPSTREAM_CALLS: '3' });
    try {
      holed.proxy.reset();
      expectOneError(await gateway.query(DeviceDocument, { id: '8000' }, DEMO_ADMIN_KEY), 'UPSTREAM_BUDGET_EXCEEDED', ['protectionDevice']);
      expect(holed.proxy.calls).toHaveLength(3);
    } finally {
      await gateway.close();
    }
  });
});
