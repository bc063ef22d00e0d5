// Operation 7 over HTTP: GET /api/v1/atb against a service seeded with demo devices.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProtectionDevice } from '../src/records.ts';
import { generateDemoData } from '../src/seed/generate.ts';
import { dbRows, startTestV1, TEST_KEYS, v1Request } from './helpers/v1.ts';
import type { TestV1 } from './helpers/v1.ts';

const DEVICES = 30;
let service: TestV1;
/** Every device as the database holds it, by id. */
let stored: Map<number, ProtectionDevice>;

interface DeviceRow {
  id: number;
  organization_id: number;
  name: string;
  logo: string;
  atb_key: string;
  type: string;
  email: string;
  device_id: string;
  endpoint: string;
  private_ip: string;
  services: string;
  check_block: string;
  plugin: string;
}

async function readStoredDevices(): Promise<Map<number, ProtectionDevice>> {
  const rows = await dbRows<DeviceRow>(
    service,
    `SELECT d.*, o.name, o.logo FROM devices d JOIN organizations o ON o.id = d.organization_id ORDER BY d.id`,
  );
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        organization: { id: row.organization_id, name: row.name, logo: row.logo },
        atb_key: row.atb_key,
        type: row.type,
        email: row.email,
        check: JSON.parse(row.check_block),
        plugin: JSON.parse(row.plugin),
        endpoint: row.endpoint,
        privateIP: row.private_ip,
        services: JSON.parse(row.services),
        device_id: row.device_id,
      },
    ]),
  );
}

async function list(query: string, token: string | null = TEST_KEYS.admin) {
  return v1Request(service, 'GET', `/api/v1/atb${query}`, { token });
}

/** Every page of a listing, checking page sizes and that `total` stays the same. */
async function allPages(query: string, limit: number, token?: string): Promise<{ total: number; items: ProtectionDevice[] }> {
  const items: ProtectionDevice[] = [];
  let total: number | undefined;
  for (let offset = 0; total === undefined || offset < total; offset += limit) {
    const res = await list(`?${query}${query ? '&' : ''}limit=${limit}&offset=${offset}`, token);
    expect(res.status).toBe(200);
    expect(res.json.error).toBe(0);
    expect(res.json.messages).toEqual([]);
    total ??= res.json.total as number;
    expect(res.json.total).toBe(total);
    expect(res.json.data).toHaveLength(Math.min(limit, total - offset));
    items.push(...res.json.data);
  }
  return { total: total ?? 0, items };
}

const ORDER_VALUE: Record<string, (d: ProtectionDevice) => string | number> = {
  id: (d) => d.id,
  type: (d) => d.type,
  email: (d) => d.email,
  device_id: (d) => d.device_id,
  endpoint: (d) => d.endpoint,
  privateIP: (d) => d.privateIP,
  atb_key: (d) => d.atb_key,
  organization: (d) => d.organization.id,
};

/** The order the contract asks for: by the field, then by id ascending whatever the direction. */
function expectedOrder(devices: ProtectionDevice[], field: string, descending: boolean): number[] {
  const value = ORDER_VALUE[field]!;
  return [...devices]
    .sort((a, b) => {
      const va = value(a);
      const vb = value(b);
      if (va !== vb) return (va < vb ? -1 : 1) * (descending ? -1 : 1);
      return a.id - b.id;
    })
    .map((d) => d.id);
}

beforeAll(async () => {
  service = await startTestV1({ seed: 'demo', seedSizes: { devices: DEVICES, traffic: 0, hotTraffic: 0 } });
  stored = await readStoredDevices();
});

afterAll(async () => {
  await service?.close();
});

describe('GET /api/v1/atb', () => {
  it('serves every device exactly as stored, and as the demo generator made it', async () => {
    const { total, items } = await allPages('', 500);
    expect(total).toBe(DEVICES);
    expect(stored.size).toBe(DEVICES);
    for (const device of items) expect(device).toEqual(stored.get(device.id));
    expect(items).toEqual(generateDemoData({ devices: DEVICES }).devices);
  });

  it('defaults to 50 a page ordered by id, with total counting every match', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.json.total).toBe(DEVICES);
    expect(res.json.data.map((d: ProtectionDevice) => d.id)).toEqual([...stored.keys()].sort((a, b) => a - b));
    const page = await list('?limit=4&offset=28');
    expect(page.json.total).toBe(DEVICES);
    expect(page.json.data.map((d: ProtectionDevice) => d.id)).toEqual([29, 30]);
    const past = await list('?offset=100');
    expect(past.json).toMatchObject({ error: 0, total: DEVICES, data: [] });
  });

  for (const field of Object.keys(ORDER_VALUE)) {
    for (const descending of [false, true]) {
      const order = `${descending ? '-' : ''}${field}`;
      it(`pages ordered by ${order} neither overlap nor skip, ties by id ascending`, async () => {
        const { total, items } = await allPages(`order=${encodeURIComponent(order)}`, 7);
        expect(total).toBe(DEVICES);
        expect(items.map((d) => d.id)).toEqual(expectedOrder([...stored.values()], field, descending));
      });
    }
  }

  it('filters by organization, and an organization key sees only its own', async () => {
    for (const organization of [1, 2, 3]) {
      const expected = [...stored.values()].filter((d) => d.organization.id === organization).map((d) => d.id);
      expect(expected.length).toBeGreaterThan(0);
      const { total, items } = await allPages(`organization=${organization}`, 4);
      expect(total).toBe(expected.length);
      expect(items.map((d) => d.id)).toEqual(expected);
    }
    const own = await allPages('', 500, TEST_KEYS.org2);
    expect(own.items.every((d) => d.organization.id === 2)).toBe(true);
    expect(own.total).toBe([...stored.values()].filter((d) => d.organization.id === 2).length);
    const named = await allPages('organization=2&order=-email', 3, TEST_KEYS.org2);
    expect(named.items.map((d) => d.id)).toEqual(expectedOrder(own.items, 'email', true));
    const none = await list('?organization=99');
    expect(none.json).toMatchObject({ total: 0, data: [] });
  });

  it('is 403 for an organization key naming another organization', async () => {
    const res = await list('?organization=1', TEST_KEYS.org2);
    expect(res.status).toBe(403);
    expect(res.json).toEqual({
      error: 1,
      messages: [{ code: 'forbidden', message: expect.any(String), field: 'organization' }],
    });
  });

  it('filters by services: any of them, under `services` or `services[]`', async () => {
    const having = (...services: string[]) =>
      [...stored.values()].filter((d) => d.services.some((s) => services.includes(s))).map((d) => d.id);
    const cases: [string, string[]][] = [
      ['services=waf', ['waf']],
      ['services[]=waf', ['waf']],
      ['services=cdn&services=ddos', ['cdn', 'ddos']],
      ['services[]=cdn&services=bot_protection&services[]=api_protection', ['cdn', 'bot_protection', 'api_protection']],
      ['services=waf&organization=1', ['waf']],
      ['services=no_such_service', ['no_such_service']],
    ];
    for (const [query, services] of cases) {
      const organization = query.includes('organization=1') ? 1 : undefined;
      const expected = having(...services).filter((id) => organization === undefined || stored.get(id)!.organization.id === 1);
      const { total, items } = await allPages(query, 5);
      expect(total, query).toBe(expected.length);
      expect(items.map((d) => d.id), query).toEqual(expected);
    }
    expect(having('waf').length).toBeGreaterThan(0);
    expect(having('waf').length).toBeLessThan(DEVICES);
  });

  it('rejects bad limit, offset, order and organization with the parameter named', async () => {
    const cases: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=x', 'offset'],
      ['offset=1&offset=2', 'offset'],
      ['order=name', 'order'],
      ['order=-', 'order'],
      ['order=privateip', 'order'],
      ['order=--id', 'order'],
      ['organization=0', 'organization'],
      ['organization=one', 'organization'],
      ['colour=red', 'colour'],
      ['service=waf', 'service'],
    ];
    for (const [query, field] of cases) {
      const res = await list(`?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json.error, query).toBe(1);
      expect(res.json.messages, query).toEqual([{ code: 'validation_failed', message: expect.any(String), field }]);
    }
  });

  it('lists every problem of the query at once', async () => {
    const res = await list('?limit=0&offset=-2&order=nope&extra=1');
    expect(res.status).toBe(400);
    expect(res.json.messages.map((m: { field: string }) => m.field).sort()).toEqual(['extra', 'limit', 'offset', 'order']);
    expect(res.json.messages.every((m: { code: string }) => m.code === 'validation_failed')).toBe(true);
  });

  it('needs a key', async () => {
    const res = await list('', null);
    expect(res.status).toBe(401);
    expect(res.json.messages[0].code).toBe('unauthenticated');
  });
});
