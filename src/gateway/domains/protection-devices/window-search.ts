// Finds where a time window begins and ends in a device's traffic log. v1 has no date filter, but
// its log sorts by `date_time` (ties by id, so the order is total) and answers a page of one at any
// offset together with the log's length: the first entry at or after an instant is found by a
// search over offsets. Timestamps rise with the offset, so each entry read bounds where the
// instant can be; guessing its offset from the timestamps around it (interpolation) finds it in a
// few reads where entries are spread evenly, and bisection keeps the worst case to O(log n).
//
// As device-search.ts does for ids, the search sees the log only through `probe` (the timestamp at
// one offset and the log's length), so HTTP, deduplication of pages and the call budget stay with
// the caller, and the search can be checked against lists in memory.

export interface TimeProbed {
  /** The log's length when the page was read. */
  total: number;
  /** The timestamp (milliseconds) of the entry at the offset; undefined past the end. */
  time: number | undefined;
}

/** Reads the entry at `offset` of the log in ascending time; `last` reads the last entry instead. */
export type TimeProbe = (offset: number | 'last') => Promise<TimeProbed>;

interface Point {
  offset: number;
  time: number;
}

/** Where an instant can be: the nearest known entries before it and at or after it, and the next ones out. */
interface Bracket {
  below: Point;
  above: Point;
  belowNext?: Point;
  aboveNext?: Point;
}

/**
 * What reads of one log (one device, search and actions) have taught: timestamps at known offsets
 * and the log's length. One is kept per operation, so every window of the operation narrows the
 * searches of the others.
 */
export class TimeOrderedLog {
  readonly #at = new Map<number, number>();
  #total: number | undefined;

  get total(): number | undefined {
    return this.#total;
  }

  has(offset: number): boolean {
    return this.#at.has(offset);
  }

  timeAt(offset: number): number | undefined {
    return this.#at.get(offset);
  }

  times(): IterableIterator<number> {
    return this.#at.values();
  }

  learn(offset: number, { total, time }: TimeProbed): void {
    // An empty page before the end means the log shrank while it was read: end it there.
    this.#total = time === undefined ? Math.min(total, offset) : total;
    if (time !== undefined) this.#at.set(offset, time);
  }

  /** The first offset whose time is at or after `instant`, if the known entries tell it; else where it can be. */
  bracket(instant: number): number | Bracket {
    const bracket: Bracket = {
      below: { offset: -1, time: Number.NEGATIVE_INFINITY },
      above: { offset: this.#total ?? Number.POSITIVE_INFINITY, time: Number.POSITIVE_INFINITY },
    };
    for (const [offset, time] of this.#at) {
      if (offset >= (this.#total ?? Number.POSITIVE_INFINITY)) continue;
      const point = { offset, time };
      if (time < instant) {
        if (offset > bracket.below.offset) {
          if (bracket.below.offset >= 0) bracket.belowNext = bracket.below;
          bracket.below = point;
        } else if (offset > (bracket.belowNext?.offset ?? -1)) bracket.belowNext = point;
      } else if (offset < bracket.above.offset) {
        if (Number.isFinite(bracket.above.time)) bracket.aboveNext = bracket.above;
        bracket.above = point;
      } else if (offset < (bracket.aboveNext?.offset ?? Number.POSITIVE_INFINITY)) bracket.aboveNext = point;
    }
    return bracket.above.offset === bracket.below.offset + 1 ? bracket.above.offset : bracket;
  }
}

/**
 * Guesses per instant before bisection takes over. Timestamps are usually spread evenly, or evenly
 * within bursts (a busy hour, an incident); there a guess from the density of entries next to the
 * instant lands within a few entries of it, and equal timestamps (a second holds tens of entries on
 * a busy device), which no guess can tell apart, are bisected.
 */
const GUESSES = 8;

/** What one instant's search has done so far. */
interface Search {
  guesses: number;
  /** The offset it read last, and how many reads in a row landed on the same side of the instant. */
  lastRead?: number;
  side?: 'below' | 'above';
  streak: number;
}

/**
 * The granularity of the log's timestamps: whole seconds when every known one is (the usual
 * case), else milliseconds. A timestamp stands for a run of entries that share it.
 */
function granularityOf(log: TimeOrderedLog): number {
  for (const time of log.times()) if (time % 1000 !== 0) return 1;
  return 1000;
}

/** The next read for `instant`: an offset, 'last', or the answer when the known entries tell it. */
function nextStep(instant: number, log: TimeOrderedLog, search: Search): { answer: number } | { read: number | 'last' } {
  if (log.total === undefined) return { read: 0 };
  const known = log.bracket(instant);
  if (typeof known === 'number') return { answer: known };
  const { below, above, belowNext, aboveNext } = known;
  if (log.total === 0) return { answer: 0 };
  // The ends first: an instant before the first entry or after the last needs no more.
  if (below.offset < 0 && !log.has(0)) return { read: 0 };
  if (!Number.isFinite(above.time)) return { read: 'last' };
  const first = below.offset + 1;
  const last = above.offset - 1;
  const bisect = Math.floor((first + last) / 2);
  noteLanding(instant, log, search);
  if (search.guesses >= GUESSES || below.offset < 0) return { read: bisect };
  search.guesses += 1;
  // Entries that share a timestamp cannot be told apart by time: aim between the run of the last
  // timestamp before the instant and the run of the first one at or after it.
  const granularity = granularityOf(log);
  const target = Math.ceil(instant / granularity) * granularity - granularity / 2;
  const along = (from: Point, to: Point) => from.offset + ((target - from.time) * (to.offset - from.offset)) / (to.time - from.time);
  // The density of entries on the instant's nearer side, when two entries there are known and
  // closer together than the bracket is wide: it sees a burst that the density across the
  // bracket would smear, unless a second read in a row lands on the same side.
  const aboveIsNearer = above.time - instant < instant - below.time;
  const nearPair: [Point, Point] | undefined = aboveIsNearer ? aboveNext && [above, aboveNext] : belowNext && [belowNext, below];
  const span = nearPair === undefined ? 0 : nearPair[1].time - nearPair[0].time;
  // The nearer side's density, unless it points out of the bracket (a burst does not reach the instant).
  const localGuess = nearPair && span > 0 && span < above.time - below.time ? Math.round(along(nearPair[0], nearPair[1])) : Number.NaN;
  let guess: number;
  if (search.streak < 2 && localGuess >= first && localGuess <= last) guess = localGuess;
  else {
    // Across the bracket. Reads that keep landing on one side mean the entries are not spread
    // evenly there (a burst beyond the instant): each one more in a row halves the weight of the
    // end that stays (the Illinois rule of regula falsi), so the guesses close in on it fast.
    let fraction = (along(below, above) - below.offset) / (above.offset - below.offset);
    const pull = 2 ** Math.max(0, search.streak - 1);
    if (search.side === 'above') fraction /= pull;
    else if (search.side === 'below') fraction = 1 - (1 - fraction) / pull;
    guess = below.offset + fraction * (above.offset - below.offset);
  }
  guess = Math.round(guess);
  const read = Number.isFinite(guess) ? Math.min(last, Math.max(first, guess)) : bisect;
  search.lastRead = read;
  return { read };
}

/** Which side of the instant the search's last read landed on, and how many in a row did. */
function noteLanding(instant: number, log: TimeOrderedLog, search: Search): void {
  if (search.lastRead === undefined) return;
  const time = log.timeAt(search.lastRead);
  search.lastRead = undefined;
  if (time === undefined) return;
  const side = time < instant ? 'below' : 'above';
  search.streak = side === search.side ? search.streak + 1 : 1;
  search.side = side;
}

/**
 * For each instant, the first offset of the log whose entry is at or after it (the log's length
 * when none is). The instants are searched together, round by round: one round reads in parallel
 * the next offset of every instant still open, and what any read teaches narrows every search.
 */
export async function findInstants(instants: readonly number[], probe: TimeProbe, log: TimeOrderedLog): Promise<Map<number, number>> {
  const results = new Map<number, number>();
  const searches = new Map<number, Search>(instants.map((instant) => [instant, { guesses: 0, streak: 0 }]));
  for (;;) {
    const reads = new Set<number | 'last'>();
    for (const [instant, search] of searches) {
      if (results.has(instant)) continue;
      const step = nextStep(instant, log, search);
      if ('answer' in step) results.set(instant, step.answer);
      else reads.add(step.read);
    }
    if (reads.size === 0) return results;
    // Until the log's length is known, offset 0 and the last entry are read together (two calls,
    // one round): every search needs both ends.
    if (log.total === undefined) reads.add('last');
    const answers = await Promise.all([...reads].map(async (read) => ({ read, answer: await probe(read) })));
    for (const { read, answer } of answers) {
      if (read === 'last') {
        if (answer.time !== undefined) log.learn(answer.total - 1, answer);
        else log.learn(0, answer);
      } else log.learn(read, answer);
    }
  }
}
