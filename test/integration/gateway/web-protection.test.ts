// Web protection records through the gateway, over HTTP: the partial edit field by field (checked
// against what the v1 service then holds), every field of the returned record, the upstream's
// validation errors, unknown and foreign records, moves between organizations, and the delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOrganization, getWebProtectionRecord, insertWebProtectionRecord, listWebProtectionRecords, type OrganizationRef, type WebProtectionCheck, type WebProtectionRecord } from 'reference-service/testing';
import { onlyError, startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';
import * as oracle from '../../helpers/oracle.ts';
import { v1Request } from '../../helpers/v1.ts';
import {
  DeleteWebProtectionRecordDocument,
  UpdateTwoWebProtectionRecordsDocument,
  UpdateWebProtectionRecordDocument,
  type WebProtectionRecordInput,
} from '../../generated/operations.ts';

let stack: Stack;

const CHECK: WebProtectionCheck = {
  stat: { fqdn: 1, proxy: 0, endpoint: 1, datetime: '2026-11-20T23:00:00Z' },
  status: 2,
  web_stat: [
    { datetime: '2026-11-20T22:00:00Z', waf_protection: 97.5, total_managed_requests: 18234 },
    { datetime: '2026-11-20T23:00:00.250Z', waf_protection: 99, total_managed_requests: 20411.5 },
  ],
};

/** Record ids by purpose; each test works on its own record. */
const ids: Record<string, number> = {};
/** The demo seeding's records, by id, as seeded. */
let demoRecordIds: number[] = [];

function organization(id: number): OrganizationRef {
  const found = getOrganization(stack.v1.db, id);
  expect(found).toBeDefined();
  return found!;
}

function insert(name: string, organizationId: number, services: string[] = ['waf', 'ddos']): void {
  ids[name] = insertWebProtectionRecord(stack.v1.db, {
    organizationId,
    email: `${name}@acmehealth.example`,
    fqdn: `${name}.acmehealth.example`,
    endpoint: `203.0.113.${Object.keys(ids).length + 10}`,
    services,
    check: CHECK,
  });
}


/** A record as the gateway must show it: the tests' one oracle (test/helpers/oracle.ts). */
const expectedRecord = (record: WebProtectionRecord) => oracle.webProtectionRecord(record as unknown as oracle.V1WebProtectionRecord);

/**
 * What v1 holds for a record, asked directly (not through the counting proxy). v1 has no read of
 * one record: an empty edit changes nothing and answers the record.
 */
async function v1Record(id: number): Promise<WebProtectionRecord> {
  const response = await v1Request(stack.v1, 'PUT', `/api/v1/cloud-defender/${id}`, { body: {} });
  expect(response.status, response.body).toBe(200);
  return response.json.data as WebProtectionRecord;
}

function update(id: number | string, input: WebProtectionRecordInput, key?: string | null) {
  return stack.query(UpdateWebProtectionRecordDocument, { id: String(id), input }, key === undefined ? {} : { key });
}

beforeAll(async () => {
  // Demo data (a dozen records over three organizations) plus records of this suite's own, one
  // per test that changes one. The TEST_KEYS are accepted beside the demo keys.
  stack = await startStack({ key: TEST_KEYS.admin });
  demoRecordIds = listWebProtectionRecords(stack.v1.db).map((record) => record.id);
  for (const name of ['empty', 'fields', 'invalid', 'nulls', 'move', 'remove', 'pair']) insert(name, 1);
  insert('foreign', 2, ['bot_protection']);
});

afterAll(async () => {
  await stack?.close();
});

describe('updateWebProtectionRecord', () => {
  it('returns every field of every demo record as v1 holds it', async () => {
    expect(demoRecordIds.length).toBeGreaterThanOrEqual(12);
    const organizations = new Set<number>();
    for (const id of demoRecordIds) {
      const held = await v1Record(id);
      organizations.add(held.organization.id);
      const response = await update(id, {});
      expect(response.errors).toBeUndefined();
      expect(response.data!.updateWebProtectionRecord!.webProtectionRecord).toEqual(expectedRecord(held));
      expect(await v1Record(id)).toEqual(held);
    }
    expect(organizations.size).toBe(3);
  });

  it('with an empty input changes nothing and returns every field of the record', async () => {
    const before = await v1Record(ids.empty!);
    stack.proxy.reset();
    const response = await update(ids.empty!, {});
    expect(response.errors).toBeUndefined();
    expect(stack.proxy.lines()).toEqual([`PUT /api/v1/cloud-defender/${ids.empty}`]);
    expect(response.data!.updateWebProtectionRecord!.webProtectionRecord).toEqual({
      id: String(ids.empty),
      organization: { id: '1', name: organization(1).name, logo: organization(1).logo },
      email: 'empty@acmehealth.example',
      fqdn: 'empty.acmehealth.example',
      check: {
        stat: { fqdn: 1, proxy: 0, endpoint: 1, datetime: '2026-11-20T23:00:00.000Z' },
        status: 2,
        webStat: [
          { datetime: '2026-11-20T22:00:00.000Z', wafProtection: 97.5, totalManagedRequests: 18234 },
          { datetime: '2026-11-20T23:00:00.250Z', wafProtection: 99, totalManagedRequests: 20411.5 },
        ],
      },
      endpoint: before.endpoint,
      services: ['waf', 'ddos'],
    });
    expect(response.data!.updateWebProtectionRecord!.webProtectionRecord).toEqual(expectedRecord(before));
    expect(await v1Record(ids.empty!)).toEqual(before);
  });

  it('changes only the fields given, one at a time and together', async () => {
    const id = ids.fields!;
    const edits: [WebProtectionRecordInput, (record: WebProtectionRecord) => WebProtectionRecord][] = [
      [{ fqdn: 'portal.acmehealth.example' }, (r) => ({ ...r, fqdn: 'portal.acmehealth.example' })],
      [{ email: 'secops@acmehealth.example' }, (r) => ({ ...r, email: 'secops@acmehealth.example' })],
      [{ endpoint: '198.51.100.23' }, (r) => ({ ...r, endpoint: '198.51.100.23' })],
      [{ services: ['cdn', 'waf', 'rate_limiting'] }, (r) => ({ ...r, services: ['cdn', 'waf', 'rate_limiting'] })],
      [{ services: [] }, (r) => ({ ...r, services: [] })],
      [{ organizationId: '3' }, (r) => ({ ...r, organization: organization(3) })],
      [
        { organizationId: 1, fqdn: 'shop.acmehealth.example', services: ['api_protection'] },
        (r) => ({ ...r, organization: organization(1), fqdn: 'shop.acmehealth.example', services: ['api_protection'] }),
      ],
    ];
    for (const [input, change] of edits) {
      const before = await v1Record(id);
      const response = await update(id, input);
      expect(response.errors, JSON.stringify(input)).toBeUndefined();
      const after = await v1Record(id);
      expect(after, JSON.stringify(input)).toEqual(change(before));
      expect(response.data!.updateWebProtectionRecord!.webProtectionRecord).toEqual(expectedRecord(after));
    }
  });

  it('passes on the upstream’s validation errors as BAD_USER_INPUT on a null mutation, which stays as it was', async () => {
    const before = await v1Record(ids.invalid!);
    // v1's field, then the client's name for it.
    const cases: [WebProtectionRecordInput, string, string][] = [
      [{ fqdn: 'not a host name' }, 'fqdn', 'input.fqdn'],
      [{ fqdn: 'nodot' }, 'fqdn', 'input.fqdn'],
      [{ services: ['waf', 'teleportation'] }, 'services.1', 'input.services[1]'],
      [{ services: ['waf', 'waf'] }, 'services.1', 'input.services[1]'],
      // A valid EmailAddress for the gateway, but v1 wants a dot in the domain.
      [{ email: 'ops@localhost' }, 'email', 'input.email'],
      [{ organizationId: '99' }, 'organization', 'input.organizationId'],
    ];
    for (const [input, field, graphqlField] of cases) {
      const response = await update(ids.invalid!, input);
      const error = onlyError(response);
      expect(error.path, JSON.stringify(input)).toEqual(['updateWebProtectionRecord']);
      expect(error.extensions).toEqual({
        code: 'BAD_USER_INPUT',
        field: graphqlField,
        upstream: { status: 400, error: 1, messages: [{ code: 'validation_failed', message: expect.any(String), field }] },
      });
      expect(response.data).toEqual({ updateWebProtectionRecord: null });
      for (const leak of [new URL(stack.v1.url).host, new URL(stack.proxy.url).host, 'x-service-token']) {
        expect(response.text.toLowerCase()).not.toContain(leak);
      }
    }
    expect(await v1Record(ids.invalid!)).toEqual(before);
  });

  it('is NOT_FOUND for an unknown id, and BAD_USER_INPUT without an upstream call for an id that cannot exist', async () => {
    const missing = await update(99999, { fqdn: 'ghost.acmehealth.example' });
    expect(onlyError(missing)).toMatchObject({
      path: ['updateWebProtectionRecord'],
      extensions: { code: 'NOT_FOUND', upstream: { status: 404 } },
    });
    expect(missing.data).toEqual({ updateWebProtectionRecord: null });

    stack.proxy.reset();
    for (const id of ['abc', '0', '-3']) {
      const bad = await update(id, {});
      expect(onlyError(bad).extensions?.code, id).toBe('BAD_USER_INPUT');
    }
    expect(stack.proxy.lines()).toEqual([]);
  });

  it('refuses an explicit null for any field with BAD_USER_INPUT, without an upstream call', async () => {
    const before = await v1Record(ids.nulls!);
    stack.proxy.reset();
    const inputs: WebProtectionRecordInput[] = [
      { organizationId: null },
      { fqdn: null },
      { email: null },
      { endpoint: null },
      { services: null },
      { fqdn: 'kept.acmehealth.example', email: null },
    ];
    for (const input of inputs) {
      const response = await update(ids.nulls!, input);
      const error = onlyError(response);
      expect(error.extensions?.code, JSON.stringify(input)).toBe('BAD_USER_INPUT');
      expect(error.path).toEqual(['updateWebProtectionRecord']);
      expect(response.data).toEqual({ updateWebProtectionRecord: null });
    }
    expect(stack.proxy.lines()).toEqual([]);
    expect(await v1Record(ids.nulls!)).toEqual(before);
  });

  it("is NOT_FOUND for an organization key on another organization's record, which stays as it was", async () => {
    const before = await v1Record(ids.foreign!);
    const response = await update(ids.foreign!, { fqdn: 'taken.northwind-logistics.example' }, TEST_KEYS.org1);
    expect(onlyError(response)).toMatchObject({
      path: ['updateWebProtectionRecord'],
      extensions: { code: 'NOT_FOUND', upstream: { status: 404 } },
    });
    expect(await v1Record(ids.foreign!)).toEqual(before);
    // The owner's key edits it.
    const own = await update(ids.foreign!, { fqdn: 'owned.northwind-logistics.example' }, TEST_KEYS.org2);
    expect(own.errors).toBeUndefined();
    expect(own.data!.updateWebProtectionRecord!.webProtectionRecord?.fqdn).toBe('owned.northwind-logistics.example');
  });

  it('is FORBIDDEN for an organization key moving its record to another organization', async () => {
    const before = await v1Record(ids.move!);
    const response = await update(ids.move!, { organizationId: '2' }, TEST_KEYS.org1);
    expect(onlyError(response)).toMatchObject({
      path: ['updateWebProtectionRecord'],
      extensions: { code: 'FORBIDDEN', upstream: { status: 403 } },
    });
    expect(await v1Record(ids.move!)).toEqual(before);
    // Naming its own organization is allowed.
    const stay = await update(ids.move!, { organizationId: '1' }, TEST_KEYS.org1);
    expect(stay.data!.updateWebProtectionRecord!.webProtectionRecord).toEqual(expectedRecord(before));
  });

  it('keeps the data of a second edit when the first edit of the same document fails', async () => {
    const before = await v1Record(ids.pair!);
    const response = await stack.query(UpdateTwoWebProtectionRecordsDocument, {
      failingId: String(ids.pair),
      failingInput: { services: ['nonexistent'] },
      id: String(ids.pair),
      input: { endpoint: '192.0.2.77' },
    });
    const error = onlyError(response);
    expect(error.path).toEqual(['failing']);
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    const after = await v1Record(ids.pair!);
    expect(after).toEqual({ ...before, endpoint: '192.0.2.77' });
    expect(response.data).toEqual({ failing: null, succeeding: { webProtectionRecord: expectedRecord(after) } });
  });
});

describe('deleteWebProtectionRecord', () => {
  it('returns the record as it was; then editing or deleting it is NOT_FOUND', async () => {
    const before = await v1Record(ids.remove!);
    stack.proxy.reset();
    const response = await stack.query(DeleteWebProtectionRecordDocument, { id: String(ids.remove) });
    expect(response.errors).toBeUndefined();
    expect(stack.proxy.lines()).toEqual([`DELETE /api/v1/cloud-defender/${ids.remove}`]);
    expect(response.data).toEqual({ deleteWebProtectionRecord: { webProtectionRecord: expectedRecord(before) } });
    expect(getWebProtectionRecord(stack.v1.db, ids.remove!)).toBeUndefined();

    const again = await stack.query(DeleteWebProtectionRecordDocument, { id: String(ids.remove) });
    expect(onlyError(again)).toMatchObject({
      path: ['deleteWebProtectionRecord'],
      extensions: { code: 'NOT_FOUND', upstream: { status: 404 } },
    });
    expect(again.data).toEqual({ deleteWebProtectionRecord: null });

    const edit = await update(ids.remove!, { fqdn: 'revived.acmehealth.example' });
    expect(onlyError(edit)).toMatchObject({
      path: ['updateWebProtectionRecord'],
      extensions: { code: 'NOT_FOUND' },
    });
    expect(getWebProtectionRecord(stack.v1.db, ids.remove!)).toBeUndefined();
  });

  it("is NOT_FOUND for an organization key on another organization's record, which stays", async () => {
    const before = await v1Record(ids.foreign!);
    const response = await stack.query(DeleteWebProtectionRecordDocument, { id: String(ids.foreign) }, { key: TEST_KEYS.org1 });
    expect(onlyError(response)).toMatchObject({
      path: ['deleteWebProtectionRecord'],
      extensions: { code: 'NOT_FOUND', upstream: { status: 404 } },
    });
    expect(await v1Record(ids.foreign!)).toEqual(before);
  });
});

describe('keys', () => {
  it('without a key is HTTP 401 UNAUTHENTICATED with no upstream call, and nothing changes', async () => {
    const before = await v1Record(ids.empty!);
    stack.proxy.reset();
    const edit = await update(ids.empty!, { fqdn: 'anonymous.acmehealth.example' }, null);
    expect(edit.status).toBe(401);
    expect(edit.headers.get('www-authenticate')).toBe('Bearer');
    expect(onlyError(edit).extensions?.code).toBe('UNAUTHENTICATED');
    expect(edit.data).toBeUndefined();
    const remove = await stack.query(DeleteWebProtectionRecordDocument, { id: String(ids.empty) }, { key: null });
    expect(remove.status).toBe(401);
    expect(onlyError(remove).extensions?.code).toBe('UNAUTHENTICATED');
    expect(stack.proxy.lines()).toEqual([]);
    expect(await v1Record(ids.empty!)).toEqual(before);
    // The lines as production writes them (its logger, with its redaction), one per request at least.
    expect(stack.logs.length).toBeGreaterThan(0);
    for (const key of stack.keys()) expect(stack.logs.filter((line) => line.includes(key))).toEqual([]);
  });
});
