// Operation 8's search of short terms, on either store (run again on PostgreSQL by
// vitest.postgres.config.ts): a term of two characters and a term with no run of three letters or
// digits (an address) are found through an index, never by checking every entry of the device, and
// give exactly the contract's substring matches; a search made only of one-character terms is
// refused with a 400 that names the term.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrafficLogEntry } from '../src/records.ts';
import { explainTrafficSearch as explainOnPostgres } from '../src/postgres/traffic.ts';
import { generateDemoData, generateTraffic } from '../src/seed/generate.ts';
import { explainTrafficSearch as explainOnSqlite } from '../src/storage/traffic.ts';
import type { NewTrafficEntry } from '../src/storage/traffic.ts';
import { PostgresStore } from '../src/testing.ts';
import { expectV1Failure, startTestV1, TEST_STORE, v1Request, type TestV1 } from './helpers/v1.ts';
import { craftedEntries, matchesSearch, sortEntries, storedEntries } from './traffic-fixtures.ts';

// Device 1 holds most entries (the index is worth asking there); device 2 a few beside them.
const BUSY = 1;
const SMALL = 2;
let service: TestV1;
let entries: Map<number, TrafficLogEntry[]>;

/** Entries the index of trigrams cannot find a two-character term in: a text too short, a NUL. */
function unindexable(deviceId: number): NewTrafficEntry[] {
  const base = { device_id: deviceId, date_time: '2026-02-02T00:00:00Z', type: 'zq', src_ip: '', dest_ip: '', dest_port: '', extra: {} };
  return [
    { ...base, log_message: 'zq' },
    { ...base, date_time: '2026-02-02T00:00:01Z', type: 'x', log_message: TEST_STORE === 'postgres' ? 'qx' : 'qx\u0000' },
  ];
}

beforeAll(async () => {
  service = await startTestV1();
  for (const device of generateDemoData({ devices: 3 }).devices) await service.store.insertDevice(device);
  await service.store.bulkInsertTraffic([
    ...generateTraffic({ count: 600, deviceIds: [SMALL, 3] }),
    ...generateTraffic({ count: 0, hotCount: 4000, deviceIds: [BUSY], seed: 1 }),
  ]);
  for (const deviceId of [BUSY, SMALL]) {
    for (const entry of [...craftedEntries(deviceId), ...unindexable(deviceId)]) await service.store.insertTraffic(entry);
  }
  entries = new Map(await Promise.all([BUSY, SMALL].map(async (id) => [id, await storedEntries(service, id)] as const)));
});

afterAll(async () => {
  await service?.close();
});

function path(deviceId: number, query: string): string {
  return `/api/v1/atb/${deviceId}/traffic?${query}`;
}

/** Every page of a search, newest first. */
async function allPages(deviceId: number, search: string): Promise<{ total: number; items: TrafficLogEntry[] }> {
  const items: TrafficLogEntry[] = [];
  let total: number | undefined;
  for (let offset = 0; total === undefined || offset < total; offset += 1000) {
    const res = await v1Request(service, 'GET', path(deviceId, `search=${encodeURIComponent(search)}&limit=1000&offset=${offset}`));
    expect(res.status, search).toBe(200);
    total ??= res.json.total as number;
    items.push(...res.json.data);
  }
  return { total: total ?? 0, items };
}

/** How the store would find a search's matches on a device. */
async function plan(search: string, deviceId: number): Promise<string[]> {
  const filter = { deviceId, search };
  const order = { field: 'date_time' as const, descending: true };
  return service.store instanceof PostgresStore ? explainOnPostgres(service.store.pool, filter, order, service.store.searchSample) : explainOnSqlite(service.db, filter, order);
}

describe('a search of short terms', () => {
  const served = [
    'zq',
    'QZ',
    'xj',
    'qx',
    '22',
    '80',
    '10.0.0.1',
    '10.9.8',
    '.1',
    '%2',
    '_d',
    'é.',
    'ze',
    'zü',
    '😀 em',
    'zq 22',
    '22 a',
    'a ab',
    '\\s',
    'no such',
  ];
  for (const search of served) {
    it(`finds exactly the entries holding every term of ${JSON.stringify(search)}`, async () => {
      for (const deviceId of [BUSY, SMALL]) {
        const want = sortEntries(entries.get(deviceId)!.filter((entry) => matchesSearch(entry, search)), 'date_time', true);
        const { total, items } = await allPages(deviceId, search);
        expect(total, search).toBe(want.length);
        expect(items, search).toEqual(want);
      }
    });
  }

  it('has cases that match many entries, a few, and none', () => {
    const count = (search: string) => entries.get(BUSY)!.filter((entry) => matchesSearch(entry, search)).length;
    expect(count('22')).toBeGreaterThan(100);
    expect(count('zq')).toBe(1);
    expect(count('qx')).toBe(1);
    expect(count('zü')).toBe(1);
    expect(count('10.9.8')).toBeGreaterThan(0);
    expect(count('no such')).toBe(0);
  });

  it('asks an index for a rare term, not every entry of the device', async () => {
    // Device 3 holds no entry the trigrams miss (on SQLite: the plain join with the index).
    for (const [search, deviceId] of [
      ['zq', BUSY],
      ['xj', BUSY],
      ['zü', BUSY],
      ['zq 22', BUSY],
      ['xj', 3],
      ['qz', BUSY],
    ] as const) {
      const lines = await plan(search, deviceId);
      if (TEST_STORE === 'postgres') {
        expect(lines.join('\n'), search).toMatch(/Bitmap Index Scan on traffic_search/);
        expect(lines.join('\n'), search).not.toMatch(/Seq Scan on traffic/);
      } else {
        expect(lines.join('\n'), search).toMatch(/SCAN s VIRTUAL TABLE INDEX|traffic_search VIRTUAL TABLE INDEX/);
        expect(lines.join('\n'), search).not.toMatch(/USING (COVERING )?INDEX traffic_by_\w+ \(device_id=\?\)/);
      }
    }
  });

  it('refuses a search made only of one-character terms, naming them', async () => {
    for (const search of ['a', 'A', 'a b', '7', '%', 'é', '😀', '. .']) {
      const res = await v1Request(service, 'GET', path(BUSY, `search=${encodeURIComponent(search)}`));
      expectV1Failure(res, 400, [{ code: 'validation_failed', field: 'search' }]);
      const terms = [...new Set(search.toLowerCase().split(/\s+/))];
      for (const term of terms) expect(res.json.messages[0].message).toContain(JSON.stringify(term));
      expect(res.json.messages[0].message).toMatch(/^search needs a term of at least two characters/);
    }
    // The same with an export, and on a device with few entries: the rule is the search's alone.
    const exported = await v1Request(service, 'GET', path(SMALL, 'search=a&export=csv'));
    expectV1Failure(exported, 400, [{ code: 'validation_failed', field: 'search' }]);
  });
});
