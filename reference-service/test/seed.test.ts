// Demo seeding: what it stores, that it stores it once, and that the bulk traffic load leaves the
// same state (indexes, triggers, search index, counts) as inserting entry by entry would.
import { afterEach, describe, expect, it } from 'vitest';
import { generateDemoData, generateTraffic } from '../src/seed/generate.ts';
import { seedDemo } from '../src/seed/index.ts';
import { openDatabase } from '../src/storage/database.ts';
import type { Database } from '../src/storage/database.ts';
import { insertDevice } from '../src/storage/devices.ts';
import { hashApiKey } from '../src/storage/keys.ts';
import { bulkInsertTraffic } from '../src/storage/traffic-bulk.ts';
import { insertTraffic } from '../src/storage/traffic.ts';
import { startTestV1, v1Request } from './helpers/v1.ts';
import type { ProtectionDevice } from '../src/records.ts';

const SIZES = { devices: 8, traffic: 1500, hotTraffic: 500 };
const open: Database[] = [];

function database(): Database {
  const db = openDatabase(':memory:');
  open.push(db);
  return db;
}

afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

const count = (db: Database, table: string): number =>
  (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

/** The search index agrees with the table (FTS5 compares every entry's trigrams with its text). */
function checkSearchIndex(db: Database): void {
  db.exec(`INSERT INTO traffic_search (traffic_search, rank) VALUES ('integrity-check', 1)`);
}

function trafficSchema(db: Database): { type: string; name: string; sql: string }[] {
  return db
    .prepare<[], { type: string; name: string; sql: string }>(
      `SELECT type, name, sql FROM sqlite_schema WHERE tbl_name = 'traffic' AND sql IS NOT NULL ORDER BY name`,
    )
    .all();
}

function keptCounts(db: Database) {
  return db.prepare('SELECT device_id, action, n FROM traffic_counts WHERE n > 0 ORDER BY device_id, action').all();
}

function countedCounts(db: Database) {
  return db
    .prepare(
      `SELECT device_id, coalesce(action, '') AS action, count(*) AS n FROM traffic
       GROUP BY device_id, coalesce(action, '') ORDER BY device_id, action`,
    )
    .all();
}

describe('seedDemo', () => {
  it('stores the generated demo data, traffic included, and only hashes of the keys', () => {
    const db = database();
    const keys = seedDemo(db, SIZES);
    const demo = generateDemoData(SIZES);
    expect(keys).toEqual(demo.apiKeys);
    expect(keys.map((k) => k.organizationId)).toEqual([null, 1, 2, 3]);
    expect(count(db, 'organizations')).toBe(3);
    expect(count(db, 'devices')).toBe(SIZES.devices);
    expect(count(db, 'security_frameworks')).toBe(demo.frameworks.length);
    expect(count(db, 'web_protection_records')).toBe(demo.webProtectionRecords.length);

    const stored = db.prepare('SELECT * FROM api_keys').all();
    expect(stored).toHaveLength(keys.length);
    const dump = JSON.stringify(stored);
    for (const { key } of keys) {
      expect(dump).not.toContain(key);
      expect(db.prepare('SELECT 1 FROM api_keys WHERE key_hash = ?').get(hashApiKey(key))).toBeDefined();
    }

    // The traffic is the generator's, in its order, with ids from 1.
    const rows = db
      .prepare('SELECT id, device_id, date_time, type, src_ip, dest_ip, dest_port, log_message, extra FROM traffic ORDER BY id')
      .all() as { id: number; extra: string }[];
    const generated = [...generateTraffic({ count: SIZES.traffic, hotCount: SIZES.hotTraffic, deviceIds: demo.devices.map((d) => d.id) })];
    expect(rows).toHaveLength(SIZES.traffic + SIZES.hotTraffic);
    expect(rows.map((row, i) => ({ ...row, id: row.id - i, extra: JSON.parse(row.extra) }))).toEqual(
      generated.map((entry) => ({ id: 1, ...entry })),
    );
    expect(count(db, 'traffic WHERE device_id = 1')).toBeGreaterThanOrEqual(SIZES.hotTraffic);
  });

  it('leaves the traffic schema, search index and counts as entry-by-entry inserts would', () => {
    const seeded = database();
    seedDemo(seeded, SIZES);
    const fresh = database();
    expect(trafficSchema(seeded)).toEqual(trafficSchema(fresh));
    expect(trafficSchema(seeded).filter((o) => o.type === 'trigger').length).toBeGreaterThan(3);
    checkSearchIndex(seeded);
    expect(keptCounts(seeded)).toEqual(countedCounts(seeded));
    expect(orderFlags(seeded)).toEqual(Array(SIZES.devices).fill(1));

    // The same entries inserted one at a time through the triggers: the same counts and flags.
    for (const device of generateDemoData(SIZES).devices) {
      if (fresh.prepare('SELECT 1 FROM organizations WHERE id = ?').get(device.organization.id) === undefined) {
        fresh.prepare('INSERT INTO organizations (id, name, logo) VALUES (?, ?, ?)').run(device.organization.id, 'o', 'l');
      }
      insertDevice(fresh, device);
    }
    const insertAll = fresh.transaction(() => {
      for (const entry of generateTraffic({ count: SIZES.traffic, hotCount: SIZES.hotTraffic, deviceIds: [1, 2, 3, 4, 5, 6, 7, 8] })) {
        insertTraffic(fresh, entry);
      }
    });
    insertAll();
    checkSearchIndex(fresh);
    expect(keptCounts(fresh)).toEqual(keptCounts(seeded));
    expect(orderFlags(fresh)).toEqual(orderFlags(seeded));
  });

  it('writes nothing to a database that has organizations, and still returns the demo keys it holds', () => {
    const db = database();
    const first = seedDemo(db, SIZES);
    const before = count(db, 'traffic');
    expect(seedDemo(db, { devices: 20, traffic: 99, hotTraffic: 0 })).toEqual(first);
    expect(count(db, 'traffic')).toBe(before);
    expect(count(db, 'devices')).toBe(SIZES.devices);

    const other = database();
    other.prepare(`INSERT INTO organizations (id, name, logo) VALUES (1, 'Own', 'https://logo.example/own.svg')`).run();
    expect(seedDemo(other, SIZES)).toEqual([]);
    expect(count(other, 'devices')).toBe(0);
  });

  it('keeps index, counts and order flag in step with live inserts after seeding', () => {
    const db = database();
    seedDemo(db, SIZES);
    const newest = db.prepare('SELECT max(date_time) AS d FROM traffic WHERE device_id = 2').get() as { d: string };
    const entry = { ...[...generateTraffic({ count: 1, deviceIds: [2] })][0]!, device_id: 2 };
    insertTraffic(db, { ...entry, date_time: newest.d });
    expect(orderFlags(db)[1]).toBe(1);
    insertTraffic(db, { ...entry, date_time: '2020-01-01T00:00:00Z', extra: { action: 'Quarantine' } });
    expect(orderFlags(db)[1]).toBe(0);
    expect(orderFlags(db)[0]).toBe(1);
    checkSearchIndex(db);
    expect(keptCounts(db)).toEqual(countedCounts(db));
    expect(() => db.prepare(`UPDATE traffic SET type = 'x' WHERE id = 1`).run()).toThrow(/append-only/);
  });

  it('rolls a failed bulk load back whole, indexes and triggers included', () => {
    const db = database();
    db.prepare(`INSERT INTO organizations (id, name, logo) VALUES (1, 'Own', 'https://logo.example/own.svg')`).run();
    insertDevice(db, generateDemoData({ devices: 1 }).devices[0] as ProtectionDevice);
    const schema = trafficSchema(db);
    // Device 2 does not exist: its first entry breaks the foreign key, midway through the load.
    const entries = [...generateTraffic({ count: 50, deviceIds: [1, 2] })];
    expect(() => bulkInsertTraffic(db, entries)).toThrow();
    expect(count(db, 'traffic')).toBe(0);
    expect(trafficSchema(db)).toEqual(schema);
    checkSearchIndex(db);
  });
});

function orderFlags(db: Database): number[] {
  return db.prepare('SELECT traffic_in_order FROM devices ORDER BY id').pluck().all() as number[];
}

describe('the service with demo seeding', () => {
  it('answers with the demo keys, each seeing its own organization', async () => {
    const service = await startTestV1({ seed: 'demo', seedSizes: { devices: 6, traffic: 100, hotTraffic: 0 } });
    try {
      const org2 = service.demoKeys.find((k) => k.organizationId === 2)!;
      expect(service.demoKeys).toHaveLength(4);
      const res = await v1Request(service, 'GET', '/api/v1/atb', { token: org2.key });
      expect(res.status).toBe(200);
      expect(res.json.total).toBe(2);
      expect(res.json.data.every((d: ProtectionDevice) => d.organization.id === 2)).toBe(true);
    } finally {
      await service.close();
    }
  });
});
