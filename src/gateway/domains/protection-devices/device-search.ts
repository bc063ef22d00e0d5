// Finds items by id in a list that is ordered by id but can only be read a page at a time: v1 has
// no single-device read, yet its device list sorts by id and answers a page of one at any offset
// together with the list's length. Ids are distinct integers that rise with the offset, so every
// item read bounds where the others can be, and a search costs O(log n) pages of one rather than
// a walk over the list.
//
// The search sees the list only through `probe`, the item at one offset and the list's length.
// That keeps HTTP, deduplication of pages and the call budget on the caller's side (its probe goes
// through them), lets the search be checked against lists in memory, and makes it work the same on
// whatever list a key sees: an organization's devices are still ordered by id.

export interface Probed<T> {
  /** The list's length when the page was read. */
  total: number;
  /** The item at the offset; undefined past the end. */
  item: T | undefined;
}

export type Probe<T> = (offset: number) => Promise<Probed<T>>;

interface Anchor {
  offset: number;
  id: number;
}

interface Bracket {
  /** The nearest known items below and above the id. */
  below: Anchor;
  above: Anchor;
  /** The next known items out, on either side: with the nearest, they tell how dense the ids are there. */
  belowNext?: Anchor;
  aboveNext?: Anchor;
}

/**
 * What reads of one list have taught: items at known offsets and the list's length. One is kept
 * per operation, so that every search and page of the operation narrows the next searches.
 */
export class IdOrderedList<T extends { id: number }> {
  readonly #at = new Map<number, T>();
  #total: number | undefined;

  get total(): number | undefined {
    return this.#total;
  }

  /** A page read at `offset` of the list in id order. */
  learn(offset: number, page: { total: number; items: readonly T[] }): void {
    page.items.forEach((item, i) => this.#at.set(offset + i, item));
    // An empty page before the end means the list shrank while it was read: end it there, so that
    // a search never asks for the same empty offset twice.
    this.#total = page.items.length === 0 ? Math.min(page.total, offset) : page.total;
  }

  /** The item with this id if known, else where it can be. */
  bracket(id: number): T | Bracket {
    // Offset -1 stands for "before the first item" (ids are positive), the length for "past the last".
    const bracket: Bracket = {
      below: { offset: -1, id: 0 },
      above: { offset: this.#total ?? Number.POSITIVE_INFINITY, id: Number.POSITIVE_INFINITY },
    };
    for (const [offset, item] of this.#at) {
      if (item.id === id) return item;
      const anchor = { offset, id: item.id };
      if (item.id < id) {
        if (offset > bracket.below.offset) {
          if (bracket.below.offset >= 0) bracket.belowNext = bracket.below;
          bracket.below = anchor;
        } else if (offset > (bracket.belowNext?.offset ?? -1)) bracket.belowNext = anchor;
      } else if (offset < bracket.above.offset) {
        if (Number.isFinite(bracket.above.id)) bracket.aboveNext = bracket.above;
        bracket.above = anchor;
      } else if (offset < (bracket.aboveNext?.offset ?? Number.POSITIVE_INFINITY)) bracket.aboveNext = anchor;
    }
    return bracket;
  }
}

/**
 * Reads of one id that guess where it is, once an item above it is known; bisection follows.
 * Ids are usually dense, dense with holes (deleted devices) or evenly thinned (one organization's
 * devices), and there a guess lands on the id or next to it. An uneven spread would make guessing
 * crawl: the cap keeps the worst case at two reads to find the list's end, these guesses, and a
 * bisection of the list (20 reads among 20,000 items).
 */
const GUESSES = 3;

/**
 * The next offset to read for `id`, or what is already known: the item, or null when no offset
 * can hold it. `search.guesses` counts the guesses made for the id.
 */
function nextStep<T extends { id: number }>(id: number, list: IdOrderedList<T>, search: { guesses: number }): T | null | number {
  const known = list.bracket(id);
  if (!('below' in known)) return known;
  const { below, above, belowNext, aboveNext } = known;
  // Between two items ids rise by at least one per offset: that bounds the offsets on both sides,
  // and each bound is where the id would be if the ids were dense from that side.
  const first = Math.max(below.offset + 1, above.offset - (above.id - id));
  const last = Math.min(above.offset - 1, below.offset + (id - below.id));
  if (first > last) return null;
  // Nothing known above: guess the ids dense from below. Past the end, that reads the last item.
  if (!Number.isFinite(above.id)) return last;
  const bisect = Math.floor((first + last) / 2);
  if (search.guesses >= GUESSES) return bisect;
  search.guesses += 1;
  // Go by the density of ids next to the id, on its nearer side, when two items there are known:
  // it sees a hole in the ids that the density across the whole bracket would smear. Otherwise
  // interpolate across the bracket.
  const along = (from: Anchor, to: Anchor) => from.offset + Math.round(((id - from.id) * (to.offset - from.offset)) / (to.id - from.id));
  const aboveIsNearer = above.id - id < id - below.id;
  const guess =
    aboveIsNearer && aboveNext ? along(above, aboveNext) : !aboveIsNearer && belowNext ? along(below, belowNext) : along(below, above);
  // A list that changed between reads can make two known items disagree: bisect then.
  return Number.isFinite(guess) ? Math.min(last, Math.max(first, guess)) : bisect;
}

/**
 * The items with these ids, null for those the list does not hold, or the error of the read an
 * id needed. All the ids are searched together, round by round: one round reads in parallel the
 * next offset of every id still open, and what any read teaches narrows every search.
 */
export async function findByIds<T extends { id: number }>(
  ids: readonly number[],
  probe: Probe<T>,
  list: IdOrderedList<T>,
): Promise<Map<number, T | null | Error>> {
  const results = new Map<number, T | null | Error>();
  const searches = new Map<number, { guesses: number }>();
  for (const id of ids) {
    if (Number.isSafeInteger(id) && id >= 1) searches.set(id, { guesses: 0 });
    else results.set(id, null);
  }
  const open = () => [...searches.keys()].filter((id) => !results.has(id)).sort((a, b) => a - b);
  // Until the list's length is known, read for the smallest id alone: its guess is the likeliest
  // to fall inside the list, and the others then guess within it instead of past its end.
  if (list.total === undefined && open().length > 1) await round(open().slice(0, 1));
  for (let searching = open(); searching.length > 0; searching = open()) await round(searching);
  return results;

  async function round(searching: number[]): Promise<void> {
    const readers = new Map<number, number[]>();
    for (const id of searching) {
      const step = nextStep(id, list, searches.get(id)!);
      if (typeof step === 'number') readers.set(step, [...(readers.get(step) ?? []), id]);
      else results.set(id, step);
    }
    const offsets = [...readers.keys()];
    const settled = await Promise.allSettled(offsets.map((offset) => probe(offset)));
    settled.forEach((outcome, i) => {
      const offset = offsets[i]!;
      if (outcome.status === 'fulfilled') {
        const { total, item } = outcome.value;
        list.learn(offset, { total, items: item === undefined ? [] : [item] });
      } else {
        const error = outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason));
        for (const id of readers.get(offset)!) results.set(id, error);
      }
    });
  }
}
