import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebProtectionCheck, WebProtectionRecord } from '../src/records.ts';
import { TEST_KEYS, TEST_ORGANIZATIONS, expectV1Failure, startTestV1, v1Request } from './helpers/v1.ts';
import type { TestV1 } from './helpers/v1.ts';

const path = (id: number | string) => `/api/v1/cloud-defender/${id}`;

const CHECK: WebProtectionCheck = {
  stat: { fqdn: 1, proxy: 1, endpoint: 0, datetime: '2026-11-20T23:00:00Z' },
  status: 2,
  web_stat: [
    { datetime: '2026-11-20T22:00:00Z', waf_protection: 97.5, total_managed_requests: 18234 },
    { datetime: '2026-11-20T23:00:00Z', waf_protection: 99, total_managed_requests: 20411 },
  ],
};

let service: TestV1;
let counter = 0;

/** Stores a fresh record (there is no create operation) and returns it as the service serves it. */
async function seedRecord(organizationId = 1): Promise<WebProtectionRecord> {
  counter++;
  const input = {
    organizationId,
    email: `owner${counter}@example.com`,
    fqdn: `app${counter}.example.com`,
    endpoint: `203.0.113.${counter}`,
    services: ['waf', 'cdn'],
    check: CHECK,
  };
  const id = await service.store.insertWebProtectionRecord(input);
  const { organizationId: _, ...rest } = input;
  return {
    id,
    organization: TEST_ORGANIZATIONS.find((o) => o.id === organizationId)!,
    email: rest.email,
    fqdn: rest.fqdn,
    check: CHECK,
    endpoint: rest.endpoint,
    services: rest.services,
  };
}

beforeAll(async () => {
  service = await startTestV1();
});
afterAll(async () => {
  await service?.close();
});

describe('edit (operation 5)', () => {
  it('with an empty body changes nothing and answers the whole record', async () => {
    const record = await seedRecord();
    const response = await v1Request(service, 'PUT', path(record.id), { token: TEST_KEYS.org1, body: {} });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ error: 0, messages: [], data: record });
    // No body at all reads as an empty one.
    const bare = await v1Request(service, 'PUT', path(record.id));
    expect(bare.json).toEqual({ error: 0, messages: [], data: record });
  });

  it('changes only the fields present, one at a time and all together', async () => {
    const record = await seedRecord();
    const steps: [Record<string, unknown>, Partial<WebProtectionRecord>][] = [
      [{ fqdn: 'shop.eu-west.example.org' }, { fqdn: 'shop.eu-west.example.org' }],
      [{ email: 'secops+waf@example.org' }, { email: 'secops+waf@example.org' }],
      [{ endpoint: '198.51.100.254' }, { endpoint: '198.51.100.254' }],
      [{ services: ['ddos', 'bot_protection', 'rate_limiting', 'api_protection'] }, { services: ['ddos', 'bot_protection', 'rate_limiting', 'api_protection'] }],
      [{ services: [] }, { services: [] }],
      [
        { fqdn: 'a-b.c9.example', email: 'x@y.example', endpoint: '0.0.0.0', services: ['waf'] },
        { fqdn: 'a-b.c9.example', email: 'x@y.example', endpoint: '0.0.0.0', services: ['waf'] },
      ],
    ];
    let expected = record;
    for (const [body, change] of steps) {
      expected = { ...expected, ...change };
      const response = await v1Request(service, 'PUT', path(record.id), { token: TEST_KEYS.org1, body });
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ error: 0, messages: [], data: expected });
    }
    const reread = await v1Request(service, 'PUT', path(record.id), { body: {} });
    expect(reread.json.data).toEqual(expected);
  });

  it('moves a record to another existing organization with an admin key', async () => {
    const record = await seedRecord(1);
    const response = await v1Request(service, 'PUT', path(record.id), { token: TEST_KEYS.admin, body: { organization: 3 } });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ error: 0, messages: [], data: { ...record, organization: TEST_ORGANIZATIONS[2] } });
    // Now organization 1's key no longer sees it.
    expectV1Failure(await v1Request(service, 'PUT', path(record.id), { token: TEST_KEYS.org1, body: {} }), 404, [{ code: 'not_found' }]);
  });

  it('lets an organization key name its own organization but not move a record elsewhere (403)', async () => {
    const record = await seedRecord(1);
    const same = await v1Request(service, 'PUT', path(record.id), { token: TEST_KEYS.org1, body: { organization: 1 } });
    expect(same.json).toEqual({ error: 0, messages: [], data: record });
    expectV1Failure(await v1Request(service, 'PUT', path(record.id), { token: TEST_KEYS.org1, body: { organization: 2 } }), 403, [
      { code: 'forbidden', field: 'organization' },
    ]);
    expectV1Failure(await v1Request(service, 'PUT', path(record.id), { token: TEST_KEYS.org1, body: { organization: 999 } }), 403, [
      { code: 'forbidden', field: 'organization' },
    ]);
    const unchanged = await v1Request(service, 'PUT', path(record.id), { token: TEST_KEYS.org1, body: {} });
    expect(unchanged.json.data).toEqual(record);
  });

  const invalid: [string, unknown][] = [
    ['organization', 0],
    ['organization', -2],
    ['organization', 1.5],
    ['organization', '1'],
    ['organization', null],
    ['fqdn', 'localhost'],
    ['fqdn', '-bad.example.com'],
    ['fqdn', 'bad-.example.com'],
    ['fqdn', 'under_score.example.com'],
    ['fqdn', 'double..dot.com'],
    ['fqdn', 'trailing.dot.com.'],
    ['fqdn', `${'a'.repeat(64)}.example.com`],
    ['fqdn', `${Array.from({ length: 64 }, () => 'abc').join('.')}.com`],
    ['fqdn', 42],
    ['email', 'not-an-address'],
    ['email', 'a@b'],
    ['email', 'two@@example.com'],
    ['email', ''],
    ['endpoint', '256.1.1.1'],
    ['endpoint', '10.0.0'],
    ['endpoint', '010.0.0.1'],
    ['endpoint', '::1'],
    ['endpoint', 'example.com'],
    ['services', 'waf'],
    ['services', ['firewall']],
    ['services', ['waf', 'waf']],
    ['services', [1]],
  ];
  for (const [field, value] of invalid) {
    it(`rejects ${field} = ${JSON.stringify(value).slice(0, 40)} with 400 and changes nothing`, async () => {
      const record = await seedRecord();
      const response = await v1Request(service, 'PUT', path(record.id), { body: { [field]: value } });
      const expectedField = field === 'services' && Array.isArray(value) ? `services.${value.length - 1}` : field;
      expectV1Failure(response, 400, [{ code: 'validation_failed', field: expectedField }]);
      const reread = await v1Request(service, 'PUT', path(record.id), { body: {} });
      expect(reread.json.data).toEqual(record);
    });
  }

  it('rejects an organization that does not exist (400), with an admin key', async () => {
    const record = await seedRecord();
    expectV1Failure(await v1Request(service, 'PUT', path(record.id), { body: { organization: 999 } }), 400, [
      { code: 'validation_failed', field: 'organization' },
    ]);
  });

  it('rejects unknown fields and lists every problem', async () => {
    const record = await seedRecord();
    expectV1Failure(await v1Request(service, 'PUT', path(record.id), { body: { fqdn: 'ok.example.com', check: {} } }), 400, [
      { code: 'unknown_field', field: 'check' },
    ]);
    expectV1Failure(
      await v1Request(service, 'PUT', path(record.id), { body: { id: 5, fqdn: 'nodot', email: 'x', endpoint: '1.2.3', services: ['cdn', 'waf', 'cdn'] } }),
      400,
      [
        { code: 'unknown_field', field: 'id' },
        { code: 'validation_failed', field: 'fqdn' },
        { code: 'validation_failed', field: 'email' },
        { code: 'validation_failed', field: 'endpoint' },
        { code: 'validation_failed', field: 'services.2' },
      ],
    );
    expectV1Failure(await v1Request(service, 'PUT', path(record.id), { body: [] }), 400, [{ code: 'validation_failed' }]);
    const reread = await v1Request(service, 'PUT', path(record.id), { body: {} });
    expect(reread.json.data).toEqual(record);
  });

  it('is 404 for an unknown id (edit never creates) and for another organization\'s record', async () => {
    const ofOrg2 = await seedRecord(2);
    expectV1Failure(await v1Request(service, 'PUT', path(987654), { body: { fqdn: 'new.example.com' } }), 404, [{ code: 'not_found' }]);
    expect(await service.store.getWebProtectionRecord(987654)).toBeUndefined();
    expectV1Failure(await v1Request(service, 'PUT', path(ofOrg2.id), { token: TEST_KEYS.org1, body: { fqdn: 'stolen.example.com' } }), 404, [
      { code: 'not_found' },
    ]);
    const reread = await v1Request(service, 'PUT', path(ofOrg2.id), { token: TEST_KEYS.org2, body: {} });
    expect(reread.json.data).toEqual(ofOrg2);
  });

  it('rejects an id that is not a positive integer', async () => {
    for (const bad of ['0', 'abc', '-1', '2.5']) {
      expectV1Failure(await v1Request(service, 'PUT', path(bad), { body: {} }), 400, [{ code: 'validation_failed', field: 'id' }]);
    }
  });
});

describe('delete (operation 6)', () => {
  it('removes the record and answers it as it was; a second delete or a later edit is 404', async () => {
    const record = await seedRecord(2);
    const response = await v1Request(service, 'DELETE', path(record.id), { token: TEST_KEYS.org2 });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ error: 0, messages: [], data: record });
    expectV1Failure(await v1Request(service, 'DELETE', path(record.id), { token: TEST_KEYS.org2 }), 404, [{ code: 'not_found' }]);
    expectV1Failure(await v1Request(service, 'PUT', path(record.id), { body: {} }), 404, [{ code: 'not_found' }]);
  });

  it('is 404 for another organization\'s record (which stays) and 400 for a bad id', async () => {
    const record = await seedRecord(2);
    expectV1Failure(await v1Request(service, 'DELETE', path(record.id), { token: TEST_KEYS.org1 }), 404, [{ code: 'not_found' }]);
    const still = await v1Request(service, 'PUT', path(record.id), { token: TEST_KEYS.org2, body: {} });
    expect(still.json.data).toEqual(record);
    expectV1Failure(await v1Request(service, 'DELETE', path('x')), 400, [{ code: 'validation_failed', field: 'id' }]);
  });
});

describe('read extensions (E1 list, E2 one record)', () => {
  // A service of its own, so that the truth below is every record it holds.
  let reads: TestV1;
  const stored: WebProtectionRecord[] = [];
  const fqdns = ['m.example.com', 'b.example.com', 'z.example.com', 'b.example.com', 'a.example.org', 'k.example.net', 'c.example.com'];

  beforeAll(async () => {
    reads = await startTestV1();
    for (const [i, fqdn] of fqdns.entries()) {
      const organizationId = [1, 2, 1, 1, 3, 2, 1][i]!;
      const input = { organizationId, email: `r${i}@example.com`, fqdn, endpoint: `198.51.100.${i + 1}`, services: ['waf'], check: CHECK };
      const id = await reads.store.insertWebProtectionRecord(input);
      stored.push({ id, organization: TEST_ORGANIZATIONS[organizationId - 1]!, email: input.email, fqdn, check: CHECK, endpoint: input.endpoint, services: ['waf'] });
    }
  });
  afterAll(async () => {
    await reads?.close();
  });

  const list = (query: string, token: string = TEST_KEYS.admin) => v1Request(reads, 'GET', `/api/v1/cloud-defender${query}`, { token });
  const byFqdn = (a: WebProtectionRecord, b: WebProtectionRecord) => (a.fqdn < b.fqdn ? -1 : a.fqdn > b.fqdn ? 1 : a.id - b.id);

  it('lists every record for an admin key and only its organization\'s for an organization key, by id', async () => {
    expect((await list('')).json).toEqual({ error: 0, messages: [], total: 7, data: stored });
    for (const [token, organization] of [[TEST_KEYS.org1, 1], [TEST_KEYS.org2, 2]] as const) {
      const mine = stored.filter((r) => r.organization.id === organization);
      expect((await list('', token)).json).toEqual({ error: 0, messages: [], total: mine.length, data: mine });
    }
  });

  it('pages with limit and offset in every order, ties by id ascending, total whatever the page', async () => {
    const orders: [string, WebProtectionRecord[]][] = [
      ['id', [...stored]],
      ['-id', [...stored].reverse()],
      ['fqdn', [...stored].sort(byFqdn)],
      ['-fqdn', [...stored].sort((a, b) => (a.fqdn === b.fqdn ? a.id - b.id : byFqdn(b, a)))],
    ];
    for (const [order, truth] of orders) {
      const pages: WebProtectionRecord[] = [];
      for (let offset = 0; offset < 9; offset += 3) {
        const page = await list(`?order=${order}&limit=3&offset=${offset}`);
        expect(page.status).toBe(200);
        expect(page.json.total).toBe(7);
        pages.push(...page.json.data);
      }
      expect(pages.map((r) => r.id), order).toEqual(truth.map((r) => r.id));
    }
    expect((await list('?limit=500&offset=7')).json).toEqual({ error: 0, messages: [], total: 7, data: [] });
  });

  it('rejects bad list parameters together with 400 naming each', async () => {
    expectV1Failure(await list('?limit=0&offset=-1&order=email'), 400, [
      { code: 'validation_failed', field: 'limit' },
      { code: 'validation_failed', field: 'offset' },
      { code: 'validation_failed', field: 'order' },
    ]);
    expectV1Failure(await list('?limit=501'), 400, [{ code: 'validation_failed', field: 'limit' }]);
    expectV1Failure(await list('?organization=1'), 400, [{ code: 'validation_failed', field: 'organization' }]);
    expectV1Failure(await list('?limit=1&limit=2'), 400, [{ code: 'validation_failed', field: 'limit' }]);
  });

  it('reads one record; 404 when absent or another organization\'s, 400 for a bad id', async () => {
    const [first, ofOrg2] = [stored[0]!, stored[1]!];
    expect((await v1Request(reads, 'GET', path(first.id), { token: TEST_KEYS.org1 })).json).toEqual({ error: 0, messages: [], data: first });
    expect((await v1Request(reads, 'GET', path(ofOrg2.id))).json).toEqual({ error: 0, messages: [], data: ofOrg2 });
    expectV1Failure(await v1Request(reads, 'GET', path(ofOrg2.id), { token: TEST_KEYS.org1 }), 404, [{ code: 'not_found' }]);
    expectV1Failure(await v1Request(reads, 'GET', path(987654)), 404, [{ code: 'not_found' }]);
    expectV1Failure(await v1Request(reads, 'GET', path('abc')), 400, [{ code: 'validation_failed', field: 'id' }]);
  });

  it('reads what an edit wrote and stops seeing what a delete removed', async () => {
    const id = await reads.store.insertWebProtectionRecord({ organizationId: 3, email: 'x@example.com', fqdn: 'x.example.com', endpoint: '192.0.2.9', services: [], check: CHECK });
    await v1Request(reads, 'PUT', path(id), { body: { fqdn: 'edited.example.com' } });
    expect((await v1Request(reads, 'GET', path(id))).json.data.fqdn).toBe('edited.example.com');
    expect((await list('')).json.total).toBe(8);
    await v1Request(reads, 'DELETE', path(id));
    expectV1Failure(await v1Request(reads, 'GET', path(id)), 404, [{ code: 'not_found' }]);
    expect((await list('')).json.total).toBe(7);
  });
});
