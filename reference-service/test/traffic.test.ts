// Operation 8 over HTTP: GET /api/v1/atb/{id}/traffic as a page (filters, search, order, paging).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrafficLogEntry } from '../src/records.ts';
import { generateDemoData, generateTraffic } from '../src/seed/generate.ts';
import { startTestV1, TEST_KEYS, TEST_STORE, v1Request } from './helpers/v1.ts';
import type { TestV1 } from './helpers/v1.ts';
import {
  craftedEntries,
  matchesActions,
  matchesSearch,
  sortEntries,
  storedEntries,
  TRAFFIC_ORDER_FIELDS,
} from './traffic-fixtures.ts';

// Demo devices go to organizations 1, 2, 3, 1, 2, 1. Devices 1 and 4 hold most of the entries, so
// that a search on them asks the trigram index; on device 1, whose entries are in date order, it
// walks the matches in id order, and on device 4, which also gets crafted entries older than the
// generated ones, it sorts them. A search on a small device (2) checks its few entries directly.
const IN_ORDER_DEVICE = 1;
const MIXED_DEVICE = 4;
const SMALL_DEVICE = 2;
const SEARCHED_DEVICES = [IN_ORDER_DEVICE, MIXED_DEVICE, SMALL_DEVICE];
let service: TestV1;
let entries: Map<number, TrafficLogEntry[]>;

function path(deviceId: number, query = ''): string {
  return `/api/v1/atb/${deviceId}/traffic${query ? `?${query}` : ''}`;
}

/** Every page of a listing, checking the page sizes and that `total` holds still. */
async function allPages(deviceId: number, query: string, limit: number): Promise<{ total: number; items: TrafficLogEntry[] }> {
  const items: TrafficLogEntry[] = [];
  let total: number | undefined;
  for (let offset = 0; total === undefined || offset < total; offset += limit) {
    const res = await v1Request(service, 'GET', path(deviceId, `${query}${query ? '&' : ''}limit=${limit}&offset=${offset}`));
    expect(res.status, query).toBe(200);
    expect(res.json.error).toBe(0);
    total ??= res.json.total as number;
    expect(res.json.total, query).toBe(total);
    expect(res.json.data).toHaveLength(Math.min(limit, total - offset));
    items.push(...res.json.data);
  }
  return { total: total ?? 0, items };
}

function expected(deviceId: number, { search, actions }: { search?: string; actions?: string[] } = {}) {
  return entries
    .get(deviceId)!
    .filter((e) => search === undefined || matchesSearch(e, search))
    .filter((e) => actions === undefined || matchesActions(e, actions));
}

beforeAll(async () => {
  service = await startTestV1();
  for (const device of generateDemoData({ devices: 6 }).devices) await service.store.insertDevice(device);
  await service.store.bulkInsertTraffic([
    ...generateTraffic({ count: 1200, deviceIds: [2, 3, 5, 6] }),
    ...generateTraffic({ count: 0, hotCount: 2500, deviceIds: [IN_ORDER_DEVICE], seed: 1 }),
    ...generateTraffic({ count: 0, hotCount: 2500, deviceIds: [MIXED_DEVICE], seed: 4 }),
  ]);
  for (const entry of craftedEntries(MIXED_DEVICE)) await service.store.insertTraffic(entry);
  entries = new Map(await Promise.all(SEARCHED_DEVICES.map(async (id) => [id, await storedEntries(service, id)] as const)));
});

afterAll(async () => {
  await service?.close();
});

describe('GET /api/v1/atb/{id}/traffic', () => {
  it('serves every entry with every field as stored, newest first by default', async () => {
    for (const deviceId of SEARCHED_DEVICES) {
      const stored = entries.get(deviceId)!;
      expect(stored.length).toBeGreaterThan(200);
      const { total, items } = await allPages(deviceId, '', 1000);
      expect(total).toBe(stored.length);
      expect(items).toEqual(sortEntries(stored, 'date_time', true));
    }
  });

  it('pages 10 entries by default, and total counts them all', async () => {
    const res = await v1Request(service, 'GET', path(IN_ORDER_DEVICE));
    expect(res.status).toBe(200);
    expect(res.json.total).toBe(entries.get(IN_ORDER_DEVICE)!.length);
    expect(res.json.data).toEqual(sortEntries(entries.get(IN_ORDER_DEVICE)!, 'date_time', true).slice(0, 10));
    const past = await v1Request(service, 'GET', path(IN_ORDER_DEVICE, 'offset=100000'));
    expect(past.json).toMatchObject({ error: 0, total: entries.get(IN_ORDER_DEVICE)!.length, data: [] });
  });

  it('breaks date_time ties by id in the same direction', async () => {
    const ties = entries.get(MIXED_DEVICE)!.filter((e) => e.type === 'tie');
    expect(ties).toHaveLength(3);
    for (const [order, ids] of [
      ['-date_time', ties.map((e) => e.id).reverse()],
      ['date_time', ties.map((e) => e.id)],
    ] as const) {
      const res = await v1Request(service, 'GET', path(MIXED_DEVICE, `search=same%20date_time&order=${order}`));
      expect(res.json.data.map((e: TrafficLogEntry) => e.id)).toEqual(ids);
    }
  });

  for (const field of TRAFFIC_ORDER_FIELDS) {
    for (const descending of [false, true]) {
      const order = `${descending ? '-' : ''}${field}`;
      it(`pages ordered by ${order} neither overlap nor skip, with and without a search`, async () => {
        for (const deviceId of SEARCHED_DEVICES) {
          const all = await allPages(deviceId, `order=${order}`, 397);
          expect(all.items).toEqual(sortEntries(entries.get(deviceId)!, field, descending));
          const searched = await allPages(deviceId, `order=${order}&search=${encodeURIComponent('203.0.113')}`, 13);
          expect(searched.total).toBeGreaterThan(26);
          expect(searched.items).toEqual(sortEntries(expected(deviceId, { search: '203.0.113' }), field, descending));
        }
      });
    }
  }

  describe('search', () => {
    const cases = [
      '203.0.113',
      '198.51.100 block',
      'BLOCK 198.51.100',
      'ModSecurity',
      'modsecurity',
      'MODSECURITY critical',
      'nginx_access   GET\t/api/v1',
      '/etc/passwd',
      '%27',
      '%2',
      '7 sql',
      '42 sql',
      'zebracorn',
      'ZEBRACORN-42 custom,type',
      'école',
      'ÉLÈVE zürich',
      'é élève',
      '100%_',
      '% percent',
      '_ under',
      'back\\slash',
      '"quoted"',
      'va,l"ue',
      'tie first',
      '\u0000 nul',
      'ji\u0000nu',
      'oji\u0000nul 😀',
      'no-such-term-anywhere',
      'block no-such-term-anywhere',
    ];
    for (const search of cases) {
      it(`finds what the contract says for ${JSON.stringify(search)}`, async () => {
        for (const deviceId of SEARCHED_DEVICES) {
          const want = sortEntries(expected(deviceId, { search }), 'date_time', true);
          const { total, items } = await allPages(deviceId, `search=${encodeURIComponent(search)}`, 1000);
          expect(total).toBe(want.length);
          expect(items).toEqual(want);
        }
      });
    }

    it('has cases that match something and cases that match nothing', () => {
      const empty = cases.filter((search) => expected(MIXED_DEVICE, { search }).length === 0);
      // PostgreSQL's text holds no NUL character (the crafted entry goes without it there): a
      // search for one finds nothing, as the service answers.
      const nul = TEST_STORE === 'postgres' ? cases.filter((search) => search.includes('\u0000')) : [];
      expect(empty).toEqual([...nul, 'no-such-term-anywhere', 'block no-such-term-anywhere']);
      expect(expected(MIXED_DEVICE, { search: 'zebracorn' })).toHaveLength(1);
      expect(expected(MIXED_DEVICE, { search: 'école' })).toHaveLength(1);
      expect(expected(MIXED_DEVICE, { search: '203.0.113' }).length).toBeGreaterThan(20);
      // A term found only in a value of `extra`:
      const zebra = expected(MIXED_DEVICE, { search: 'zebracorn' })[0]!;
      expect(zebra.log_message.toLowerCase()).not.toContain('zebracorn');
    });

    it('takes every word of a whole log line as a term', async () => {
      const line = sortEntries(entries.get(IN_ORDER_DEVICE)!, 'id', false).find((e) => e.type === 'waf')!.log_message;
      const words = line.split(/\s+/);
      expect(words.length).toBeGreaterThan(30);
      const want = sortEntries(expected(IN_ORDER_DEVICE, { search: line }), 'date_time', true);
      const { total, items } = await allPages(IN_ORDER_DEVICE, `search=${encodeURIComponent(line)}`, 1000);
      expect(total).toBe(want.length);
      expect(items).toEqual(want);
      expect(items.map((e) => e.log_message)).toContain(line);
    });

    it('treats white space alone as no search', async () => {
      const res = await v1Request(service, 'GET', path(MIXED_DEVICE, 'search=%20%20'));
      expect(res.json.total).toBe(entries.get(MIXED_DEVICE)!.length);
    });

    it('combines with actions and order', async () => {
      const want = sortEntries(expected(MIXED_DEVICE, { search: '198.51.100', actions: ['block', 'log'] }), 'src_ip', false);
      expect(want.length).toBeGreaterThan(5);
      const { total, items } = await allPages(MIXED_DEVICE, 'search=198.51.100&actions[]=BLOCK&actions=Log&order=src_ip', 5);
      expect(total).toBe(want.length);
      expect(items).toEqual(want);
    });
  });

  describe('actions', () => {
    const cases: [string, string[]][] = [
      ['actions[]=block', ['block']],
      ['actions=block', ['block']],
      ['actions[]=BLOCK&actions[]=Challenge', ['block', 'challenge']],
      ['actions=allow&actions[]=log', ['allow', 'log']],
      ['actions[]=nothing-like-this', ['nothing-like-this']],
    ];
    for (const [query, actions] of cases) {
      it(`filters ${query} ignoring case`, async () => {
        for (const deviceId of SEARCHED_DEVICES) {
          const want = sortEntries(expected(deviceId, { actions }), 'date_time', true);
          const { total, items } = await allPages(deviceId, query, 1000);
          expect(total).toBe(want.length);
          expect(items).toEqual(want);
        }
      });
    }

    it('matches the crafted actions whatever their case, and never an entry without one', async () => {
      const res = await v1Request(service, 'GET', path(MIXED_DEVICE, 'actions[]=challenge&actions[]=log&search=same%20date_time'));
      expect(res.json.data.map((e: TrafficLogEntry) => e.extra.action)).toEqual(['challenge', 'Log']);
    });
  });

  it('is 404 for an unknown device and for a device of another organization', async () => {
    for (const [deviceId, token] of [
      [999, TEST_KEYS.admin],
      [SMALL_DEVICE, TEST_KEYS.org1],
      [MIXED_DEVICE, TEST_KEYS.org2],
    ] as const) {
      const res = await v1Request(service, 'GET', path(deviceId), { token });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ error: 1, messages: [{ code: 'not_found', message: expect.any(String) }] });
    }
    const own = await v1Request(service, 'GET', path(MIXED_DEVICE), { token: TEST_KEYS.org1 });
    expect(own.status).toBe(200);
    expect(own.json.total).toBe(entries.get(MIXED_DEVICE)!.length);
  });

  it('rejects bad parameters with the parameter named', async () => {
    const cases: [string, string, string][] = [
      ['1', 'limit=0', 'limit'],
      ['1', 'limit=1001', 'limit'],
      ['1', 'limit=ten', 'limit'],
      ['1', 'offset=-1', 'offset'],
      ['1', 'offset=1e3', 'offset'],
      ['1', 'order=action', 'order'],
      ['1', 'order=-', 'order'],
      ['1', 'order=DATE_TIME', 'order'],
      ['1', 'search=a&search=b', 'search'],
      ['1', 'export=xml', 'export'],
      ['1', 'export=CSV', 'export'],
      ['1', 'action=block', 'action'],
      ['1', 'q=block', 'q'],
      ['abc', '', 'id'],
      ['0', '', 'id'],
    ];
    for (const [deviceId, query, field] of cases) {
      const res = await v1Request(service, 'GET', `/api/v1/atb/${deviceId}/traffic${query ? `?${query}` : ''}`);
      expect(res.status, query).toBe(400);
      expect(res.json.messages, query).toEqual([{ code: 'validation_failed', message: expect.any(String), field }]);
    }
  });

  it('needs a key before anything else', async () => {
    const res = await v1Request(service, 'GET', path(999, 'limit=0'), { token: null });
    expect(res.status).toBe(401);
  });
});
