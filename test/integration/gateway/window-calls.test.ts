// What finding a window's bounds costs among a million entries of one device, counted where the
// calls land (the counting proxy in front of the reference service): at most 24 upstream calls for
// both bounds, for windows an analyst asks (the last hour, an hour in the middle of a busy day, a
// day, with search and actions), each checked against the v1 service's own count. The database is
// the benchmark's (.bench/), seeded on the first run and reused after, as `npm run bench` does.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchDatabase } from '../../bench/database.ts';
import { startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';
import { REPO } from '../../helpers/start-command.ts';
import { v1Request } from '../../helpers/v1.ts';
import { TrafficWindowIdsDocument, type TrafficLogFilter } from '../../generated/operations.ts';

const SIZES = { devices: 21, traffic: 2_000, hotTraffic: 1_000_000 };
/** The device the seeding gives the million entries, packed into the demo data's last day. */
const DEVICE = '1';
const END = Date.parse('2026-11-20T23:59:59Z');
const HOUR = 3_600_000;

let stack: Stack;

beforeAll(async () => {
  const db = new BenchDatabase(join(REPO, '.bench'), SIZES);
  if (!db.reusable) db.discard();
  // A page deep in a million entries under a filter is slow for the reference service on a busy
  // machine: what is counted here is calls, so the deadline is generous.
  stack = await startStack({ v1: { database: db.path, seedSizes: SIZES }, gateway: { upstreamTimeoutMs: 120_000 }, key: TEST_KEYS.admin });
  const hot = await v1Request(stack.v1, 'GET', `/api/v1/atb/${DEVICE}/traffic?limit=1`, { token: TEST_KEYS.admin });
  expect(hot.json.total).toBeGreaterThanOrEqual(1_000_000);
  db.markSeeded();
}, 1_800_000);
afterAll(async () => {
  await stack?.close();
});

/** The window's count as v1 itself tells it: the entries from `from` on, in ascending date_time, found by a plain bisection of its pages. */
async function v1Count(filter: { search?: string; actions?: string[] }, from: number, to: number): Promise<number> {
  const firstAtOrAfter = async (instant: number) => {
    const query = (offset: number) => {
      const q = new URLSearchParams({ limit: '1', offset: String(offset), order: 'date_time' });
      if (filter.search) q.set('search', filter.search);
      for (const action of filter.actions ?? []) q.append('actions[]', action);
      return v1Request(stack.v1, 'GET', `/api/v1/atb/${DEVICE}/traffic?${q}`, { token: TEST_KEYS.admin });
    };
    let lo = 0;
    let hi = (await query(0)).json.total as number;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const at = Date.parse((await query(mid)).json.data[0].date_time);
      if (at < instant) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return (await firstAtOrAfter(to)) - (await firstAtOrAfter(from));
}

describe('the bounds of a window among a million entries', () => {
  const windows: [string, TrafficLogFilter, number, number][] = [
    ['the last hour', {}, END - HOUR + 1_000, END + 1_000],
    ['an hour in the middle of the day', {}, END - 12 * HOUR, END - 11 * HOUR],
    ['half an hour, milliseconds in its bounds', {}, END - 5 * HOUR + 250, END - 4.5 * HOUR + 750],
    ['the last hour of blocks', { actions: ['block'] }, END - HOUR + 1_000, END + 1_000],
    ['the whole busy day', {}, END - 24 * HOUR + 1_000, END + 1_000],
    ['two hours of a search', { search: 'sqlmap' }, END - 8 * HOUR, END - 6 * HOUR],
  ];
  const counted: string[] = [];
  afterAll(() => {
    console.log(`upstream calls to find both bounds among a million entries:\n${counted.join('\n')}`);
  });

  for (const [name, filter, from, to] of windows) {
    it(`${name}: at most 24 calls, and the v1 service's own count`, async () => {
      stack.proxy.reset();
      const response = await stack.query(TrafficWindowIdsDocument, {
        deviceId: DEVICE,
        first: 1,
        filter: { ...filter, from: new Date(from).toISOString(), to: new Date(to).toISOString() },
        orderBy: { field: 'DATE_TIME', direction: 'ASC' },
      });
      expect(response.errors).toBeUndefined();
      const calls = stack.proxy.lines().filter((line) => line.startsWith(`GET /api/v1/atb/${DEVICE}/traffic?limit=1&`));
      const pages = stack.proxy.calls.length - calls.length;
      counted.push(`  ${name}: ${calls.length} calls of one entry (the page of one included), ${pages} others`);
      expect(calls.length, name).toBeLessThanOrEqual(24);
      expect(response.data!.trafficLog!.totalCount).toBe(await v1Count(filter as { actions?: string[]; search?: string }, from, to));
    }, 300_000);
  }
});
