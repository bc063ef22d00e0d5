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
 * about half the size and twice as fast to build.
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

/** Every distinct trigram of a term, in order; none for a term shorter than three characters. */
export function termTrigrams(term: string): string[] {
  const chars = Array.from(term);
  const grams = new Set<string>();
  for (let i = 0; i + GRAM <= chars.length; i++) grams.add(chars.slice(i, i + GRAM).join(''));
  return [...grams];
}

/** Whether the index alone decides a term: a three-character term is its only trigram. */
export function indexDecides(term: string): boolean {
  return Array.from(term).length === GRAM;
}

/**
 * The trigrams the index query asks for: the rarest trigram of each term long enough to have
 * one, by `frequency` (an estimate of the share of entries that hold it). Any trigram of a term
 * finds every entry holding the term, and the exact check removes the rest; asking for more
 * trigrams of the same term narrows little (they mostly occur together, in the term) but costs a
 * walk through each one's list of entries, and common trigrams are in most of them.
 */
export function chooseTrigrams(terms: readonly string[], frequency: (gram: string) => number): string[] {
  const chosen = new Set<string>();
  for (const term of terms) {
    let best: string | undefined;
    let bestFrequency = Infinity;
    for (const gram of termTrigrams(term)) {
      const f = frequency(gram);
      if (f < bestFrequency) {
        best = gram;
        bestFrequency = f;
      }
    }
    if (best !== undefined) chosen.add(best);
  }
  return [...chosen];
}

/** The FTS5 query for trigrams: each one a quoted string, all of them required. */
export function matchExpression(grams: readonly string[]): string {
  return grams.map((gram) => `"${gram.replaceAll('"', '""')}"`).join(' AND ');
}
