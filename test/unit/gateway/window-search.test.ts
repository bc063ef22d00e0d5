// The search of a window's bounds (window-search.ts) against logs in memory: for every instant,
// the first offset at or after it, exactly as a plain scan finds it, whatever the spread of the
// timestamps (even, bursts, runs of equal timestamps, milliseconds, an empty log, one entry), and
// the reads it takes.
import { describe, expect, it } from 'vitest';
import { findInstants, TimeOrderedLog } from '../../../src/gateway/domains/protection-devices/window-search.ts';

function rng(seed: number) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** Runs the search over `times` (ascending), checks every answer, and returns the reads it made. */
async function search(times: number[], instants: number[]): Promise<number> {
  let reads = 0;
  const answers = await findInstants(
    instants,
    async (offset) => {
      reads += 1;
      const at = offset === 'last' ? times.length - 1 : offset;
      return { total: times.length, time: times[at] };
    },
    new TimeOrderedLog(),
  );
  for (const instant of instants) {
    const expected = times.findIndex((time) => time >= instant);
    expect(answers.get(instant), `instant ${instant}`).toBe(expected === -1 ? times.length : expected);
  }
  return reads;
}

const END = Date.parse('2026-11-20T23:59:59Z');
const DAY = 86_400_000;

describe('findInstants', () => {
  it('finds nothing to read in an empty log, and both ends of a log of one', async () => {
    expect(await search([], [END])).toBeLessThanOrEqual(2);
    for (const instant of [END - 1, END, END + 1]) await search([END], [instant]);
  });

  it('cuts runs of equal timestamps at their first entry, from either side', async () => {
    const times = [0, 0, 0, 1000, 1000, 1000, 1000, 1000, 2000, 3000, 3000].map((t) => END + t);
    for (const instant of [END - 1, END, END + 1, END + 999, END + 1000, END + 1001, END + 2000, END + 3000, END + 3001]) await search(times, [instant]);
  });

  it('is exact over even spreads, bursts and milliseconds, in few reads where entries are spread evenly', async () => {
    const random = rng(35);
    const even = Array.from({ length: 100_000 }, () => END - Math.floor(random() * 30 * DAY)).sort((a, b) => a - b);
    const burst = [
      ...Array.from({ length: 500 }, () => Math.floor((END - 30 * DAY + random() * 29 * DAY) / 1000) * 1000),
      ...Array.from({ length: 200_000 }, (_, i) => END - DAY + 1000 + Math.floor(((i + random()) * DAY) / 200_000 / 1000) * 1000),
    ].sort((a, b) => a - b);
    for (const times of [even, burst]) {
      for (let k = 0; k < 40; k++) {
        const from = END - Math.floor(random() * 31 * DAY);
        await search(times, [from, from + Math.floor(random() * 6 * 3_600_000)]);
      }
    }
    // The last hour of the burst: both ends in a few reads.
    expect(await search(burst, [END - 3_600_000 + 1000, END + 1000])).toBeLessThanOrEqual(24);
    expect(await search(even, [END - 3_600_000, END])).toBeLessThanOrEqual(24);
  });

  it('shares what it learned: a second window of the same log costs fewer reads', async () => {
    const times = Array.from({ length: 50_000 }, (_, i) => END - DAY + i * 1000);
    const log = new TimeOrderedLog();
    let reads = 0;
    const probe = async (offset: number | 'last') => {
      reads += 1;
      return { total: times.length, time: times[offset === 'last' ? times.length - 1 : offset] };
    };
    await findInstants([END - 3_600_000], probe, log);
    const first = reads;
    await findInstants([END - 3_600_000, END - 1_800_000], probe, log);
    expect(reads - first).toBeLessThan(first);
  });
});
