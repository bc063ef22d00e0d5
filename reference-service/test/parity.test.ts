// The same seeded data on both stores gives the same answers, byte for byte: lists in every
// order, pages, filters, searches and exports, and the answers of the same edits. SQLite is the
// reference; PostgreSQL runs on Debian's server, started here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, startPostgres, type TestPostgres } from './helpers/postgres.ts';
import { startTestV1, TEST_KEYS, v1Request, type TestV1 } from './helpers/v1.ts';
import { DEVICE_ORDER_FIELDS } from '../src/storage/devices.ts';
import { TRAFFIC_ORDER_FIELDS } from '../src/storage/traffic.ts';

const SIZES = { devices: 16, traffic: 6000, hotTraffic: 3000 };
const available = postgresAvailable();
let postgres: TestPostgres | undefined;
let sqlite: TestV1;
let pg: TestV1;

beforeAll(async () => {
  if (!available) return;
  postgres = await startPostgres();
  [sqlite, pg] = await Promise.all([
    startTestV1({ seed: 'demo', seedSizes: SIZES, database: ':memory:' }),
    startTestV1({ seed: 'demo', seedSizes: SIZES, database: await postgres.createDatabase() }),
  ]);
}, 120_000);
afterAll(async () => {
  await sqlite?.close();
  await pg?.close();
  await postgres?.close();
});

/** The same request to both; their status, content type and body must be identical. */
async function same(method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<string> {
  const [a, b] = await Promise.all([v1Request(sqlite, method, path, options), v1Request(pg, method, path, options)]);
  expect({ path, status: b.status, type: b.headers.get('content-type') }).toEqual({ path, status: a.status, type: a.headers.get('content-type') });
  if (b.body !== a.body) expect(b.body, `${method} ${path}`).toBe(a.body);
  return a.body;
}

const TRAFFIC_SEARCHES = [
  'get',
  'GET /api',
  'block',
  'ModSecurity critical',
  '203.0.113',
  '10.',
  'a',
  '%',
  '_',
  '"',
  'sql injection',
  'HTTP/1.1 200',
  'Mozilla curl',
  'nothing-matches-this',
  'é',
  'zq',
  'xj qz',
  '22',
  '80',
  'ab',
  '.1',
  '10.0.0.1',
  '%2',
  'é.',
  'zq 22',
  'a 22',
  'A b',
];

describe.skipIf(!available)('the two stores answer alike', () => {
  it('frameworks of every organization, with every key', async () => {
    for (const organization of [1, 2, 3, 4]) {
      for (const token of [TEST_KEYS.admin, TEST_KEYS.org1, TEST_KEYS.org2]) {
        await same('GET', `/api/v1/organizations/${organization}/security-frameworks`, { token });
      }
    }
  });

  it('devices in every order, filtered and paged', async () => {
    for (const field of DEVICE_ORDER_FIELDS) {
      for (const order of [field, `-${field}`]) {
        await same('GET', `/api/v1/atb?order=${order}&limit=7&offset=3`);
        await same('GET', `/api/v1/atb?order=${order}&limit=500`);
        await same('GET', `/api/v1/atb?order=${order}&organization=2&services=waf&services=cdn`);
        await same('GET', `/api/v1/atb?order=${order}`, { token: TEST_KEYS.org1 });
      }
    }
    await same('GET', '/api/v1/atb?limit=0');
    await same('GET', '/api/v1/atb?order=nope');
  });

  it('traffic pages in every order, with searches and actions', async () => {
    for (const device of [1, 2, 5]) {
      for (const field of TRAFFIC_ORDER_FIELDS) {
        for (const order of [field, `-${field}`]) {
          await same('GET', `/api/v1/atb/${device}/traffic?order=${order}&limit=50&offset=20`);
          await same('GET', `/api/v1/atb/${device}/traffic?order=${order}&search=get&actions[]=BLOCK&actions[]=allow&limit=30`);
        }
      }
      for (const search of TRAFFIC_SEARCHES) {
        await same('GET', `/api/v1/atb/${device}/traffic?search=${encodeURIComponent(search)}&limit=100`);
        await same('GET', `/api/v1/atb/${device}/traffic?search=${encodeURIComponent(search)}&order=src_ip&limit=20&offset=40`);
      }
    }
    // The comparisons above are of real matches, not of two empty answers.
    expect(JSON.parse(await same('GET', '/api/v1/atb/1/traffic?search=GET%20%2Fapi&limit=1')).total).toBeGreaterThan(100);
    await same('GET', '/api/v1/atb/9999/traffic');
    await same('GET', '/api/v1/atb/1/traffic?limit=1001');
  });

  it('exports, CSV and NDJSON, whole and searched', async () => {
    for (const device of [1, 3]) {
      for (const format of ['csv', 'ndjson']) {
        await same('GET', `/api/v1/atb/${device}/traffic?export=${format}`);
        await same('GET', `/api/v1/atb/${device}/traffic?export=${format}&order=dest_port&search=${encodeURIComponent('get 10.')}&actions=allow`);
      }
    }
    await same('GET', '/api/v1/atb/1/traffic?export=xml');
  });

  it('web protection records, listed and one by one (the read extensions)', async () => {
    for (const order of ['id', '-id', 'fqdn', '-fqdn']) {
      await same('GET', `/api/v1/cloud-defender?order=${order}`);
      await same('GET', `/api/v1/cloud-defender?order=${order}&limit=3&offset=2`, { token: TEST_KEYS.org1 });
    }
    for (const id of [1, 2, 5, 999]) await same('GET', `/api/v1/cloud-defender/${id}`, { token: TEST_KEYS.org2 });
    await same('GET', '/api/v1/cloud-defender?limit=501');
  });

  it('the same edits answer the same, and leave the same lists', async () => {
    const controls = [
      { id: 'A.1', type: 'policy', title: 'One', weight: 1, details: { k: 'v' }, frequency: '0 9 * * 1', description: 'd', evidence_type: 'document' },
    ];
    await same('POST', '/api/v1/V-Ciso/security-frameworks', { token: TEST_KEYS.org1, body: { title: 'Parity', security_frameworks: controls } });
    await same('PUT', '/api/v1/organizations/1/security-frameworks/1', { body: { title: 'Edited', security_frameworks: controls } });
    await same('PUT', '/api/v1/organizations/1/security-frameworks/1', { body: { title: '', security_frameworks: 'no' } });
    await same('DELETE', '/api/v1/organizations/1/security-frameworks/2');
    await same('DELETE', '/api/v1/organizations/1/security-frameworks/2');
    await same('GET', '/api/v1/organizations/1/security-frameworks');
    await same('PUT', '/api/v1/cloud-defender/1', { body: { fqdn: 'parity.example.com', services: ['waf', 'cdn'] } });
    await same('PUT', '/api/v1/cloud-defender/2', { body: { organization: 99 } });
    await same('DELETE', '/api/v1/cloud-defender/3');
    await same('PUT', '/api/v1/cloud-defender/3', { body: {} });
    await same('GET', '/api/v1/cloud-defender?order=-fqdn');
  });
});
