// The search by id over an id-ordered list (src/gateway/domains/protection-devices/device-search.ts), against lists in
// memory: spreads of ids a real service would hardly hold (squares, far clusters) that defeat
// every guess and leave the work to bisection, reads that fail, and a list that shrinks while it
// is read. test/integration/gateway/device-lookup.test.ts holds the search end to end over HTTP.
import { describe, expect, it } from 'vitest';
import { findByIds, IdOrderedList, type Probe } from '../../../src/gateway/domains/protection-devices/device-search.ts';

const SIZE = 20_000;

interface Item {
  id: number;
}

/** A probe over `ids` that records the offsets it read. */
function probeOver(ids: readonly number[]): { probe: Probe<Item>; reads: number[] } {
  const reads: number[] = [];
  const probe: Probe<Item> = async (offset) => {
    reads.push(offset);
    const id = ids[offset];
    return { total: ids.length, item: id === undefined ? undefined : { id } };
  };
  return { probe, reads };
}

/** A fixed pseudo-random sequence, so that a failure can be replayed. */
function random(seed: number): () => number {
  return () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

const dense = Array.from({ length: SIZE }, (_, i) => i + 1);
const thinned = (() => {
  const next = random(7);
  return Array.from({ length: 10 * SIZE }, (_, i) => i + 1).filter(() => next() < 0.1);
})();
const LISTS: Record<string, number[]> = {
  dense,
  holed: dense.filter((id) => id <= 5000 || id > 12_000),
  'every third': dense.filter((id) => id % 3 === 0),
  'one in ten at random': thinned,
  squares: dense.map((i) => i * i),
  'two far clusters': dense.map((i) => (i <= SIZE / 2 ? i : 1e12 + i)),
};

/** Ids held and not: every 250th item, its neighbours, both ends, and past them. */
function sampleIds(ids: readonly number[]): number[] {
  const sample = new Set([1, ids[0]! - 1, ids.at(-1)!, ids.at(-1)! + 1]);
  for (let i = 0; i < ids.length; i += 250) for (const id of [ids[i]! - 1, ids[i]!, ids[i]! + 1]) sample.add(id);
  return [...sample].filter((id) => id >= 1);
}

describe('findByIds', () => {
  for (const [name, ids] of Object.entries(LISTS)) {
    it(`${name}: each id alone is found or null within 20 reads, no offset read twice`, async () => {
      const held = new Set(ids);
      for (const id of sampleIds(ids)) {
        const { probe, reads } = probeOver(ids);
        const found = await findByIds([id], probe, new IdOrderedList());
        expect(found.get(id), String(id)).toEqual(held.has(id) ? { id } : null);
        expect(reads.length, String(id)).toBeLessThanOrEqual(20);
        expect(new Set(reads).size, String(id)).toBe(reads.length);
      }
    });
  }

  for (const name of ['dense', 'holed', 'every third', 'one in ten at random', 'two far clusters']) {
    it(`${name}: five spread ids together are found or null within 60 reads`, async () => {
      const ids = LISTS[name]!;
      const held = new Set(ids);
      for (let shift = 0; shift < 40; shift += 1) {
        const five = [0, 1, 2, 3, 4].map((i) => ids[Math.floor(((i + shift / 40) * ids.length) / 5)]! + (shift % 2));
        const { probe, reads } = probeOver(ids);
        const found = await findByIds(five, probe, new IdOrderedList());
        for (const id of five) expect(found.get(id), String(id)).toEqual(held.has(id) ? { id } : null);
        expect(reads.length, five.join()).toBeLessThanOrEqual(60);
      }
    });
  }

  it('dense ids: an id is found with one read, and an id past the end costs the end alone', async () => {
    const { probe, reads } = probeOver(dense);
    expect((await findByIds([19_998], probe, new IdOrderedList())).get(19_998)).toEqual({ id: 19_998 });
    expect(reads).toEqual([19_997]);
    const past = probeOver(dense);
    expect((await findByIds([SIZE + 1], past.probe, new IdOrderedList())).get(SIZE + 1)).toBeNull();
    expect(past.reads).toEqual([SIZE, SIZE - 1]);
  });

  it('a list shared by several searches: a later search starts from what the earlier ones read', async () => {
    const ids = LISTS['holed']!;
    const list = new IdOrderedList<Item>();
    const first = probeOver(ids);
    await findByIds([13_000], first.probe, list);
    const again = probeOver(ids);
    expect((await findByIds([13_000, 13_001], again.probe, list)).get(13_001)).toEqual({ id: 13_001 });
    expect(again.reads).toHaveLength(1);
  });

  it('ids that cannot be ids are null without a read', async () => {
    const { probe, reads } = probeOver(dense);
    const bad = [0, -3, 1.5, Number.NaN, 2 ** 53];
    const found = await findByIds(bad, probe, new IdOrderedList());
    expect(bad.map((id) => found.get(id))).toEqual(bad.map(() => null));
    expect(reads).toEqual([]);
  });

  it('a failed read fails the ids that needed it; the other ids are still answered', async () => {
    const failure = new Error('upstream down');
    const { probe } = probeOver(dense);
    const failing: Probe<Item> = (offset) => (offset === 99 ? Promise.reject(failure) : probe(offset));
    const found = await findByIds([50, 100, 150], failing, new IdOrderedList());
    expect([found.get(50), found.get(100), found.get(150)]).toEqual([{ id: 50 }, failure, { id: 150 }]);
  });

  it('a list that shrinks while it is read: the search ends, answering from what it read', async () => {
    let ids = dense.slice(0, 1000);
    const reads: number[] = [];
    // Each read counts the list, then 300 items go before it reads its page: a page can come back
    // empty at an offset below the length it reports.
    const probe: Probe<Item> = async (offset) => {
      reads.push(offset);
      const total = ids.length;
      ids = ids.slice(0, Math.max(0, ids.length - 300));
      return { total, item: ids[offset] === undefined ? undefined : { id: ids[offset]! } };
    };
    const found = await findByIds([900], probe, new IdOrderedList());
    expect([{ id: 900 }, null]).toContainEqual(found.get(900));
    expect(reads.length).toBeLessThanOrEqual(20);
  });
});
