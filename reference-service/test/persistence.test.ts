import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/storage/database.ts';
import { addEvidence } from '../src/storage/frameworks.ts';
import { insertWebProtectionRecord } from '../src/storage/web-protection.ts';
import { TEST_KEYS, startTestV1, v1Request } from './helpers/v1.ts';
import type { TestV1 } from './helpers/v1.ts';

const dir = mkdtempSync(join(tmpdir(), 'v1-persistence-'));
const file = join(dir, 'nested', 'v1.sqlite');
const running: TestV1[] = [];

afterAll(async () => {
  await Promise.all(running.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** Every row of every table, in a stable order. */
function dump(db: Database): Record<string, unknown[]> {
  const tables = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name`)
    .pluck()
    .all() as string[];
  // Sorted in JS: some tables are WITHOUT ROWID.
  const sorted = (rows: unknown[]) => rows.map((row) => JSON.stringify(row)).sort().map((text) => JSON.parse(text) as unknown);
  return Object.fromEntries(tables.map((name) => [name, sorted(db.prepare(`SELECT * FROM "${name}"`).all())]));
}

async function readAll(service: TestV1) {
  const frameworks = [];
  for (const org of [1, 2, 3]) {
    frameworks.push((await v1Request(service, 'GET', `/api/v1/organizations/${org}/security-frameworks`)).json);
  }
  const records = [];
  for (const id of [1, 2, 3]) records.push(await v1Request(service, 'PUT', `/api/v1/cloud-defender/${id}`, { body: {} }));
  return { frameworks, records: records.map((r) => [r.status, r.json]) };
}

describe('a file database', () => {
  it('keeps every record across a restart, and applies the new key configuration', async () => {
    const first = await startTestV1({ database: file });
    running.push(first);
    expect(existsSync(file)).toBe(true);
    expect(first.db.pragma('journal_mode', { simple: true })).toBe('wal');

    const control = { id: 'A.8.1', type: 'control', title: 'Assets', weight: 2.5, details: { scope: ['laptops'] }, frequency: '0 6 1 * *', description: 'Inventory', evidence_type: 'document' };
    const created: number[] = [];
    for (const [org, title] of [[1, 'ISO'], [1, 'NIST'], [2, 'CIS']] as const) {
      const response = await v1Request(first, 'POST', `/api/v1/V-Ciso/security-frameworks?organization=${org}`, {
        body: { title, security_frameworks: [control, { ...control, id: 'A.8.2' }] },
      });
      created.push(response.json.security_framework);
    }
    addEvidence(first.db, created[0]!, 'A.8.1', {
      files: [`/api/v1/documents/organizations/1/security-frameworks/${created[0]}/documents/A.8.1/inventory.xlsx`],
      details: 'Asset inventory export',
      datetime: '2026-09-30T12:00:00Z',
      completed: 1,
      residual_risk: 0.1,
      submitted_by: { user_id: '3d1e7c0a-2b8f-4a55-9c3e-5f6a7b8c9d0e', user_email: 'it@northwind.example' },
    });
    // Evidence of a control the next edit removes: kept in storage.
    addEvidence(first.db, created[0]!, 'A.8.2', {
      files: [],
      details: 'Pending',
      datetime: '2026-10-01T12:00:00Z',
      completed: 0,
      residual_risk: 0.5,
      submitted_by: { user_id: '3d1e7c0a-2b8f-4a55-9c3e-5f6a7b8c9d0e', user_email: 'it@northwind.example' },
    });
    await v1Request(first, 'PUT', `/api/v1/organizations/1/security-frameworks/${created[0]}`, {
      body: { title: 'ISO 27001', security_frameworks: [control] },
    });
    await v1Request(first, 'DELETE', `/api/v1/organizations/1/security-frameworks/${created[1]}`);
    for (const [org, n] of [[1, 1], [2, 2], [3, 3]]) {
      insertWebProtectionRecord(first.db, {
        organizationId: org!,
        email: `ops${n}@example.com`,
        fqdn: `site${n}.example.com`,
        endpoint: `192.0.2.${n}`,
        services: ['waf', 'ddos'],
        check: { stat: { fqdn: 1, proxy: 0, endpoint: 1, datetime: '2026-11-20T10:00:00Z' }, status: 1, web_stat: [] },
      });
    }
    await v1Request(first, 'PUT', '/api/v1/cloud-defender/2', { body: { services: ['cdn'], endpoint: '198.51.100.7' } });
    await v1Request(first, 'DELETE', '/api/v1/cloud-defender/3');

    const before = await readAll(first);
    const rowsBefore = dump(first.db);
    await first.close();

    // Restarted with demo seeding asked for: the database is not empty, so nothing is seeded.
    // The org-2 key is no longer configured.
    const second = await startTestV1({
      database: file,
      seed: 'demo',
      apiKeys: `${TEST_KEYS.admin}=*,${TEST_KEYS.org1}=1`,
    });
    running.push(second);
    expect(second.demoKeys).toEqual([]);
    const rowsAfter = dump(second.db);
    expect(rowsAfter).toEqual({
      ...rowsBefore,
      api_keys: rowsBefore['api_keys']!.filter((row) => (row as { organization_id: number | null }).organization_id !== 2),
    });
    expect(await readAll(second)).toEqual(before);
    expect(before.frameworks[0].total).toBe(1);
    expect(before.frameworks[0].data[0].security_frameworks[0].evidences).toHaveLength(1);
    expect(before.records.map((r) => r[0])).toEqual([200, 200, 404]);

    // The evidence of the removed control is still there: it comes back with the control.
    const back = await v1Request(second, 'PUT', `/api/v1/organizations/1/security-frameworks/${created[0]}`, {
      token: TEST_KEYS.org1,
      body: { title: 'ISO 27001', security_frameworks: [control, { ...control, id: 'A.8.2' }] },
    });
    expect(back.json.security_framework.security_frameworks[1].evidences[0].details).toBe('Pending');

    const dropped = await v1Request(second, 'GET', '/api/v1/organizations/2/security-frameworks', { token: TEST_KEYS.org2 });
    expect(dropped.status).toBe(401);
  });

  it('keeps demo data across a restart without seeding it again', async () => {
    const demoFile = join(dir, 'demo.sqlite');
    const first = await startTestV1({ database: demoFile, seed: 'demo' });
    running.push(first);
    expect(first.demoKeys.length).toBeGreaterThan(0);
    const adminKey = first.demoKeys.find((k) => k.organizationId === null)!.key;
    const before = dump(first.db);
    expect(before['organizations']!.length).toBeGreaterThan(0);
    expect(before['web_protection_records']!.length).toBeGreaterThan(0);
    expect(before['evidences']!.length).toBeGreaterThan(0);
    const served = await v1Request(first, 'GET', '/api/v1/organizations/2/security-frameworks', { token: adminKey });
    await first.close();

    const second = await startTestV1({ database: demoFile, seed: 'demo' });
    running.push(second);
    // Nothing is seeded again, but the demo keys still stored are reported, for the start banner.
    expect(second.demoKeys).toEqual(first.demoKeys);
    expect(dump(second.db)).toEqual(before);
    const again = await v1Request(second, 'GET', '/api/v1/organizations/2/security-frameworks', { token: adminKey });
    expect(again.json).toEqual(served.json);
  });
});
