import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_API_KEYS, TEST_KEYS, dbRows, startTestV1, v1Request } from './helpers/v1.ts';
import type { TestV1, V1Response } from './helpers/v1.ts';

const LIST_1 = '/api/v1/organizations/1/security-frameworks';

let service: TestV1;

beforeAll(async () => {
  // One more configured key, for an organization that does not exist.
  service = await startTestV1({ apiKeys: `${TEST_API_KEYS},ghost-org-key=77` });
});
afterAll(async () => {
  await service?.close();
});

function expectUnauthenticated(response: V1Response): void {
  expect(response.status).toBe(401);
  expect(response.json).toEqual({ error: 1, messages: [{ code: 'unauthenticated', message: expect.any(String) }] });
}

describe('X-Service-Token', () => {
  const requests: [string, string, unknown?][] = [
    ['GET', LIST_1],
    ['POST', '/api/v1/V-Ciso/security-frameworks', { title: 'T', security_frameworks: [] }],
    ['PUT', '/api/v1/organizations/1/security-frameworks/424242', { title: 'T', security_frameworks: [] }],
    ['DELETE', '/api/v1/organizations/1/security-frameworks/424242'],
    ['PUT', '/api/v1/cloud-defender/424242', {}],
    ['DELETE', '/api/v1/cloud-defender/424242'],
    ['GET', '/api/v1/cloud-defender/424242'],
    ['GET', '/api/v1/cloud-defender?limit=0'],
    ['GET', '/api/v1/no-such-route'],
    ['PATCH', LIST_1],
    ['GET', '/api/v1/organizations/zero/security-frameworks'],
  ];

  it('is 401 when missing, before any 400, 404 or 405', async () => {
    for (const [method, path, body] of requests) {
      expectUnauthenticated(await v1Request(service, method, path, { token: null, body }));
    }
  });

  it('is 401 when empty or unknown', async () => {
    for (const token of ['', '   ', 'not-a-key', TEST_KEYS.admin.toUpperCase(), `${TEST_KEYS.admin} `.repeat(2)]) {
      for (const [method, path, body] of requests.slice(0, 3)) {
        expectUnauthenticated(await v1Request(service, method, path, { token, body }));
      }
    }
  });

  it('is the only scheme: a bearer token is not a key', async () => {
    expectUnauthenticated(
      await v1Request(service, 'GET', LIST_1, { token: null, headers: { Authorization: `Bearer ${TEST_KEYS.admin}` } }),
    );
  });

  it('is 401 for a key whose organization does not exist', async () => {
    expectUnauthenticated(await v1Request(service, 'GET', '/api/v1/organizations/77/security-frameworks', { token: 'ghost-org-key' }));
  });

  it('accepts each configured key', async () => {
    for (const token of [TEST_KEYS.admin, TEST_KEYS.org1]) {
      const response = await v1Request(service, 'GET', LIST_1, { token });
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ error: 0, messages: [], total: expect.any(Number), data: expect.any(Array) });
    }
  });
});

describe('key storage', () => {
  it('keeps SHA-256 hashes and never the keys', async () => {
    const rows = await dbRows<{
      key_hash: Buffer;
      organization_id: number | null;
      label: string;
    }>(service, 'SELECT key_hash, organization_id, label FROM api_keys ORDER BY id');
    const sha = (key: string) => createHash('sha256').update(key).digest('hex');
    expect(rows.map((r) => [r.key_hash.toString('hex'), r.organization_id])).toEqual([
      [sha(TEST_KEYS.admin), null],
      [sha(TEST_KEYS.org1), 1],
      [sha(TEST_KEYS.org2), 2],
      [sha('ghost-org-key'), 77],
    ]);
    const everything = JSON.stringify(rows.map((r) => ({ ...r, key_hash: r.key_hash.toString('latin1') })));
    for (const key of [...Object.values(TEST_KEYS), 'ghost-org-key']) expect(everything).not.toContain(key);
  });

  it('storeApiKey adds a key that works at once, scoped to its organization', async () => {
    await service.store.storeApiKey('added-at-runtime', 3, 'runtime key');
    const own = await v1Request(service, 'GET', '/api/v1/organizations/3/security-frameworks', { token: 'added-at-runtime' });
    expect(own.status).toBe(200);
    const other = await v1Request(service, 'GET', LIST_1, { token: 'added-at-runtime' });
    expect(other.status).toBe(403);
    expect(other.json).toEqual({ error: 1, messages: [{ code: 'forbidden', message: expect.any(String), field: 'organizationid' }] });
    // Storing it again changes its scope.
    await service.store.storeApiKey('added-at-runtime', null, 'now admin');
    expect((await v1Request(service, 'GET', LIST_1, { token: 'added-at-runtime' })).status).toBe(200);
  });
});

describe('organization scope', () => {
  it('is 403 for naming another organization (path, query, body), 404 for its record by id', async () => {
    const forbidden = { error: 1, messages: [{ code: 'forbidden', message: expect.any(String), field: expect.any(String) }] };
    const byPath = await v1Request(service, 'GET', '/api/v1/organizations/2/security-frameworks', { token: TEST_KEYS.org1 });
    expect([byPath.status, byPath.json]).toEqual([403, forbidden]);
    const byQuery = await v1Request(service, 'POST', '/api/v1/V-Ciso/security-frameworks?organization=2', {
      token: TEST_KEYS.org1,
      body: { title: 'T', security_frameworks: [] },
    });
    expect([byQuery.status, byQuery.json]).toEqual([403, forbidden]);

    const id = await service.store.insertWebProtectionRecord({
      organizationId: 2,
      email: 'a@example.com',
      fqdn: 'a.example.com',
      endpoint: '192.0.2.1',
      services: ['waf'],
      check: { stat: { fqdn: 1, proxy: 1, endpoint: 1, datetime: '2026-11-20T00:00:00Z' }, status: 1, web_stat: [] },
    });
    const mine = await service.store.insertWebProtectionRecord({
      organizationId: 1,
      email: 'b@example.com',
      fqdn: 'b.example.com',
      endpoint: '192.0.2.2',
      services: ['waf'],
      check: { stat: { fqdn: 1, proxy: 1, endpoint: 1, datetime: '2026-11-20T00:00:00Z' }, status: 1, web_stat: [] },
    });
    const byBody = await v1Request(service, 'PUT', `/api/v1/cloud-defender/${mine}`, { token: TEST_KEYS.org1, body: { organization: 2 } });
    expect([byBody.status, byBody.json]).toEqual([403, forbidden]);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const byId = await v1Request(service, method, `/api/v1/cloud-defender/${id}`, { token: TEST_KEYS.org1, body: method === 'PUT' ? {} : undefined });
      expect([byId.status, byId.json]).toEqual([404, { error: 1, messages: [{ code: 'not_found', message: expect.any(String) }] }]);
    }
    // An admin key reaches every organization.
    expect((await v1Request(service, 'PUT', `/api/v1/cloud-defender/${id}`, { token: TEST_KEYS.admin, body: {} })).status).toBe(200);
  });
});
