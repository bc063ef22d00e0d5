// The traffic search: what text an entry is matched against, and how a search string becomes an
// FTS5 query over the trigram index plus an exact check.
//
// Contract: the search splits on white space, and every term must occur, ignoring case, as a
// substring of `log_message`, `src_ip`, `dest_ip`, `dest_port`, `type` or a value of `extra`.
// Here "ignoring case" means: the lower-cased term (String#toLowerCase) is a substring of the
// lower-cased field.

import type { TrafficLogEntry } from '../records.ts';

type SearchableFields = Pick<TrafficLogEntry, 'log_message' | 'src_ip' | 'dest_ip' | 'dest_port' | 'type' | 'extra'>;

/**
 * The text stored in `traffic.search_text`: the lower-cased searchable fields joined by newlines.
 * A term holds no white space, so it occurs in this text exactly when it occurs in one field. A
 * field already contained in the text is left out (every substring of it is already there): the
 * values of `extra` are mostly parsed out of the log line, and leaving them out makes the index
 * much smaller and quicker to build.
 */
export function searchText(entry: SearchableFields): string {
  let text = entry.log_message.toLowerCase();
  const add = (value: string): void => {
    const lower = value.toLowerCase();
    if (lower !== '' && !text.includes(lower)) text += '\n' + lower;
  };
  add(entry.src_ip);
  add(entry.dest_ip);
  add(entry.dest_port);
  add(entry.type);
  for (const key in entry.extra) add(entry.extra[key] as string);
  return text;
}

/**
 * The terms of a search, lower-cased, without repeats and without terms contained in another
 * term (they add no condition). Empty when the search is absent or only white space.
 */
export function searchTerms(search: string | undefined): string[] {
  if (search === undefined) return [];
  const distinct = [...new Set(search.toLowerCase().split(/\s+/).filter((term) => term !== ''))];
  return distinct.filter((term, i) => !distinct.some((other, j) => j !== i && other.includes(term)));
}

/** How many characters (code points, as the tokenizer counts them) a trigram has. */
const GRAM = 3;

/**
 * Why a search cannot be served, or undefined when it can: a search whose every term is one
 * character long. Such a term occurs in nearly every entry, so no index narrows it, and its
 * answer (a count of most of the device's log) costs a pass over the whole log. A one-character
 * term beside a longer one is fine: the longer one narrows, and each candidate is checked.
 */
export function unservedSearch(terms: readonly string[]): string | undefined {
  if (terms.length === 0 || terms.some((term) => Array.from(term).length > 1)) return undefined;
  const quoted = terms.map((term) => JSON.stringify(term)).join(', ');
  return `search needs a term of at least two characters: ${quoted} alone would match nearly every entry, which no index can narrow. Add a longer term.`;
}

/**
 * Every trigram that holds a two-character term, over an alphabet: the term followed by each
 * character, and each character followed by the term. A text of three or more characters holds
 * the term exactly when it holds one of these (of an alphabet of every character the texts use),
 * so the index finds a two-character term as the union of their lists. None for a term that holds
 * a NUL character (a trigram holding one cannot be asked for).
 */
export function trigramsAround(term: string, alphabet: readonly string[]): string[] | undefined {
  if (Array.from(term).length !== 2 || term.includes('\0')) return undefined;
  const grams = new Set<string>();
  for (const c of alphabet) {
    if (c === '\0') continue;
    grams.add(term + c);
    grams.add(c + term);
  }
  return [...grams];
}

/**
 * The characters other than ASCII in a text, without repeats: with every ASCII character, they
 * are the alphabet the texts are written in (see trigramsAround), kept as entries arrive.
 */
export function nonAsciiCharacters(text: string): string[] {
  const found = text.match(/[^\u0000-\u007f]/gu);
  return found === null ? [] : [...new Set(found)];
}

/** Every ASCII character a search text can hold (it is lower-cased: no capitals), NUL aside. */
export const ASCII_ALPHABET: readonly string[] = Array.from({ length: 127 }, (_, i) => String.fromCharCode(i + 1)).filter(
  (c) => c < 'A' || c > 'Z',
);

/**
 * Every distinct trigram of a term that the index can be asked for, in order; none for a term
 * shorter than three characters. (FTS5 reads its query as a C string: a trigram holding a NUL
 * character cannot be asked for, and is left to the exact check.)
 */
export function termTrigrams(term: string): string[] {
  const chars = Array.from(term);
  const grams = new Set<string>();
  for (let i = 0; i + GRAM <= chars.length; i++) {
    const gram = chars.slice(i, i + GRAM).join('');
    if (!gram.includes('\0')) grams.add(gram);
  }
  return [...grams];
}

/** Whether the index alone decides a term: a three-character term is its only trigram. */
export function indexDecides(term: string): boolean {
  return Array.from(term).length === GRAM;
}

/** What is known of how the trigrams spread over the entries: a sample of them. */
export interface TrigramSample {
  /** Number of sampled entries (0: nothing is known). */
  size: number;
  /** About how many entries the sample stands for (all devices'). */
  population: number;
  /** Which sampled entries hold the trigram, as a bit set over the sample (bit i: entry i). */
  holders(gram: string): Uint32Array;
}

// Any set of trigrams finds every match; a longer query only costs more to parse and run.
const MAX_GRAMS = 32;

// The cost model of a search, in the proportions measured on a million entries: checking a
// candidate entry (reading its row, instr() on its text) costs as much as stepping over two
// hundred entries of a trigram's list.
const LIST_ENTRY_COST = 1;
const CHECK_COST = 200;

/** How many bits of a bit set are set. */
export function popcount(bits: Uint32Array): number {
  let n = 0;
  for (let v of bits) {
    v -= (v >>> 1) & 0x55555555;
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    n += (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return n;
}

function and(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (a[i] as number) & (b[i] as number);
  return out;
}

export interface TrigramChoice {
  grams: string[];
  /** About how many entries (of all devices) the index lets through for checking. */
  candidates: number;
}

/**
 * The trigrams the index query asks for. Any trigram of a term finds every entry holding the
 * term (the exact check removes the rest), so this is a choice of cost: each trigram asked for
 * costs a walk through its list of entries, and each entry the index lets through costs a check.
 * Greedily, from the sample: add the trigram that lowers the estimated cost most, while one does.
 * Rare trigrams come first; a common one is added only when it narrows the candidates a lot
 * (trigrams of one word mostly occur together and narrow little; those of different terms do).
 */
export function chooseTrigrams(terms: readonly string[], sample: TrigramSample): TrigramChoice {
  const grams = [...new Set(terms.flatMap(termTrigrams))];
  if (grams.length === 0) return { grams: [], candidates: sample.population };
  // Nothing known (an empty table): one trigram per term.
  if (sample.size === 0) {
    const firsts = terms.map((term) => termTrigrams(term)[0]).filter((g) => g !== undefined);
    return { grams: [...new Set(firsts)].slice(0, MAX_GRAMS), candidates: 0 };
  }
  const words = Math.ceil(sample.size / 32);
  let candidates: Uint32Array = new Uint32Array(words).fill(0xffffffff);
  if (sample.size % 32 !== 0) candidates[words - 1] = (1 << sample.size % 32) - 1;
  let cost = CHECK_COST * sample.size;
  const chosen: string[] = [];
  for (;;) {
    let best: { gram: string; cost: number; candidates: Uint32Array } | undefined;
    for (const gram of grams) {
      if (chosen.includes(gram)) continue;
      const holders = sample.holders(gram);
      const narrowed = and(candidates, holders);
      const listCost = LIST_ENTRY_COST * popcount(holders);
      const total = cost - CHECK_COST * (popcount(candidates) - popcount(narrowed)) + listCost;
      if (total < (best?.cost ?? cost)) best = { gram, cost: total, candidates: narrowed };
    }
    if (best === undefined) break;
    chosen.push(best.gram);
    cost = best.cost;
    candidates = best.candidates;
  }
  // A trigram the sample never saw costs next to nothing to ask for and may narrow a lot.
  for (const term of terms) {
    const termGrams = termTrigrams(term);
    if (termGrams.some((gram) => chosen.includes(gram))) continue;
    const unseen = termGrams.find((gram) => popcount(sample.holders(gram)) === 0);
    if (unseen !== undefined) chosen.push(unseen);
  }
  return {
    grams: chosen.slice(0, MAX_GRAMS),
    candidates: Math.round((popcount(candidates) / sample.size) * sample.population),
  };
}

const quoted = (gram: string) => `"${gram.replaceAll('"', '""')}"`;

/** The FTS5 query for trigrams: each one a quoted string, all of them required. */
export function matchExpression(grams: readonly string[]): string {
  return grams.map(quoted).join(' AND ');
}

/** The FTS5 query for any one of some trigrams. */
export function anyOfExpression(grams: readonly string[]): string {
  return grams.map(quoted).join(' OR ');
}
