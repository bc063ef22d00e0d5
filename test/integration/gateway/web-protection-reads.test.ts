// Reading web protection records through the gateway, over HTTP against the reference service's
// read extensions: every organization key and the admin key against what the service itself
// answers them, both paging directions, the response cache invalidated by an edit and a delete,
// and an upstream with only the seed's operations, where the reads are NOT_SUPPORTED beside the
// rest of the data and the operator is told once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { startCountingProxy, type CountingProxy, type ProxiedCall } from '../../helpers/counting-proxy.ts';
import { expectNoErrors, walkBothWays, type IdPage } from '../../helpers/connection-checks.ts';
import { startGatewayOn, startStack, TEST_KEYS, type GatewayOn, type Stack } from '../../helpers/gateway.ts';
import * as oracle from '../../helpers/oracle.ts';
import { startTestV1, v1Request, type TestV1 } from '../../helpers/v1.ts';
import {
  DeleteWebProtectionRecordDocument,
  UpdateWebProtectionRecordDocument,
  WebProtectionReadsBesideDevicesDocument,
  WebProtectionRecordByIdDocument,
  WebProtectionRecordPageDocument,
} from '../../generated/operations.ts';

/** Every record a key sees, as the v1 service answers the key itself (E1, by id). */
async function truth(v1: TestV1, key: string): Promise<oracle.V1WebProtectionRecord[]> {
  const records: oracle.V1WebProtectionRecord[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = await v1Request(v1, 'GET', `/api/v1/cloud-defender?limit=500&offset=${offset}`, { token: key });
    expect(page.status, page.body).toBe(200);
    records.push(...page.json.data);
    if (records.length >= page.json.total) return records;
  }
}

describe('webProtectionRecords and webProtectionRecord against the reference service', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('show each organization key its own records and the admin key every one, paged both ways', async () => {
    const keys = stack.v1.demoKeys;
    expect(keys.filter((k) => k.organizationId === null).length).toBeGreaterThan(0);
    expect(keys.filter((k) => k.organizationId !== null).length).toBeGreaterThanOrEqual(3);
    const everyRecord = await truth(stack.v1, keys.find((k) => k.organizationId === null)!.key);
    for (const { key, organizationId } of keys) {
      const expected = await truth(stack.v1, key);
      expect(expected.length).toBeGreaterThan(0);
      if (organizationId === null) expect(expected).toEqual(everyRecord);
      else expect(expected).toEqual(everyRecord.filter((r) => r.organization.id === organizationId));
      const whole = expectNoErrors(await stack.query(WebProtectionRecordPageDocument, { first: 100 }, { key })).webProtectionRecords!;
      expect(whole.nodes).toEqual(expected.map(oracle.webProtectionRecord));
      await walkBothWays(
        async (args) => expectNoErrors(await stack.query(WebProtectionRecordPageDocument, args, { key })).webProtectionRecords as unknown as IdPage,
        expected.map((r) => String(r.id)),
        2,
        `records of ${organizationId ?? 'every organization'}`,
      );
      for (const record of everyRecord) {
        const read = expectNoErrors(await stack.query(WebProtectionRecordByIdDocument, { id: String(record.id) }, { key }));
        const visible = organizationId === null || record.organization.id === organizationId;
        expect(read.webProtectionRecord, `record ${record.id} for ${organizationId}`).toEqual(visible ? oracle.webProtectionRecord(record) : null);
      }
    }
  });

  it('answers null for an id that does not exist or is not an id, with one call at most', async () => {
    stack.proxy.reset();
    for (const id of ['987654', '0', 'abc']) {
      const read = expectNoErrors(await stack.query(WebProtectionRecordByIdDocument, { id }));
      expect(read.webProtectionRecord).toBeNull();
    }
    expect(stack.proxy.lines()).toEqual(['GET /api/v1/cloud-defender/987654']);
  });

  it('reads a page and a record of it in one operation with one call', async () => {
    stack.proxy.reset();
    const first = (await truth(stack.v1, TEST_KEYS.admin))[0]!;
    const response = expectNoErrors(await stack.query(WebProtectionReadsBesideDevicesDocument, { id: String(first.id) }));
    expect(response.webProtectionRecord).toEqual({ id: String(first.id) });
    expect(stack.proxy.lines().filter((line) => line.includes('cloud-defender'))).toEqual(['GET /api/v1/cloud-defender?limit=5&offset=0']);
  });
});

describe('with the response cache on', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ gateway: { responseCache: parseGatewayConfig({ RESPONSE_CACHE_TTL_S: '60' }).responseCache }, key: TEST_KEYS.admin });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const reads = (proxy: CountingProxy) => proxy.calls.filter((call) => call.method === 'GET').length;

  it('serves a repeated read from the cache, and an edit then a delete show at once', async () => {
    const [record] = await truth(stack.v1, TEST_KEYS.admin);
    const id = String(record!.id);
    const readOne = () => stack.query(WebProtectionRecordByIdDocument, { id });
    const readAll = () => stack.query(WebProtectionRecordPageDocument, { first: 100 });
    stack.proxy.reset();
    expect(expectNoErrors(await readOne()).webProtectionRecord?.fqdn).toBe(record!.fqdn);
    expect(expectNoErrors(await readAll()).webProtectionRecords?.nodes[0]?.fqdn).toBe(record!.fqdn);
    expect(reads(stack.proxy)).toBe(2);
    await readOne();
    await readAll();
    expect(reads(stack.proxy), 'cached').toBe(2);

    expectNoErrors(await stack.query(UpdateWebProtectionRecordDocument, { id, input: { fqdn: 'edited.analysts.example' } }));
    expect(expectNoErrors(await readOne()).webProtectionRecord?.fqdn).toBe('edited.analysts.example');
    expect(expectNoErrors(await readAll()).webProtectionRecords?.nodes[0]?.fqdn).toBe('edited.analysts.example');
    expect(reads(stack.proxy)).toBe(4);

    const before = expectNoErrors(await readAll()).webProtectionRecords!.totalCount;
    expectNoErrors(await stack.query(DeleteWebProtectionRecordDocument, { id }));
    expect(expectNoErrors(await readOne()).webProtectionRecord).toBeNull();
    const after = expectNoErrors(await readAll()).webProtectionRecords!;
    expect(after.totalCount).toBe(before - 1);
    expect(after.nodes.map((r) => r.id)).not.toContain(id);
  });
});

describe('against an upstream with only the seed’s operations', () => {
  let v1: TestV1;
  let proxy: CountingProxy;
  const opened: { close(): Promise<void> }[] = [];
  const notice = (gateway: GatewayOn) => gateway.logs.filter((line) => line.includes('no read of web protection records'));
  /** What a deployment without the extensions answers: no such route for the list, no such method for one record. */
  const seedOnly = (requireKeyFirst: boolean) => (call: ProxiedCall) => {
    if (call.method !== 'GET' || !call.path.startsWith('/api/v1/cloud-defender')) return undefined;
    if (requireKeyFirst && call.headers['x-service-token'] === undefined) return 401;
    return call.path === '/api/v1/cloud-defender' ? 404 : 405;
  };

  beforeAll(async () => {
    v1 = await startTestV1({ seed: 'demo' });
    proxy = await startCountingProxy(v1.url);
    opened.push(proxy, v1);
  });
  afterAll(async () => {
    for (const item of opened.reverse()) await item.close();
  });

  async function gatewayFor(requireKeyFirst: boolean): Promise<GatewayOn> {
    proxy.reset();
    proxy.fail(seedOnly(requireKeyFirst));
    const gateway = await startGatewayOn(proxy.url);
    opened.unshift(gateway);
    return gateway;
  }

  it('says so once at start, and the two fields are NOT_SUPPORTED beside the rest of the data, without calls', async () => {
    const gateway = await gatewayFor(false);
    expect(notice(gateway)).toHaveLength(1);
    expect(JSON.parse(notice(gateway)[0]!).level).toBe('warn');
    proxy.calls.length = 0;
    for (let i = 0; i < 2; i++) {
      const response = await gateway.query(WebProtectionReadsBesideDevicesDocument, { id: '1' }, TEST_KEYS.admin);
      expect(response.data).toEqual({ webProtectionRecord: null, webProtectionRecords: null, protectionDevices: { totalCount: expect.any(Number) } });
      expect(response.errors?.map((e) => [e.path, e.extensions?.code]).sort()).toEqual([
        [['webProtectionRecord'], 'NOT_SUPPORTED'],
        [['webProtectionRecords'], 'NOT_SUPPORTED'],
      ]);
      for (const error of response.errors!) expect(error.message).toMatch(/no read of web protection records/);
    }
    expect(proxy.lines().filter((line) => line.includes('cloud-defender'))).toEqual([]);
    expect(notice(gateway)).toHaveLength(1);
    // The edit still works.
    const edited = await gateway.query(UpdateWebProtectionRecordDocument, { id: '1', input: {} }, TEST_KEYS.admin);
    expect(edited.errors).toBeUndefined();
    expect(edited.data?.updateWebProtectionRecord?.webProtectionRecord?.id).toBe('1');
  });

  it('an upstream that authenticates before routing: learned from the first read with a key, said once', async () => {
    const gateway = await gatewayFor(true);
    expect(notice(gateway)).toEqual([]);
    const single = await gateway.query(WebProtectionRecordByIdDocument, { id: '2' }, TEST_KEYS.admin);
    expect(single.data).toEqual({ webProtectionRecord: null });
    expect(single.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_SUPPORTED']);
    expect(JSON.stringify(single.errors)).not.toContain(proxy.url);
    const list = await gateway.query(WebProtectionRecordPageDocument, { first: 3 }, TEST_KEYS.admin);
    expect(list.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_SUPPORTED']);
    expect(notice(gateway)).toHaveLength(1);
  });
});
