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

/**
 * Trigrams of a term that the index query asks for. Any set of the term's trigrams finds every
 * entry holding the term (the exact check removes the rest), so this takes a spread of them:
 * every third one, and the last. Each trigram costs a walk through its list of entries, and the
 * common ones hold most of the entries, so fewer trigrams make a faster query; consecutive
 * trigrams overlap by two characters and add little selectivity.
 */
export function termTrigrams(term: string): string[] {
  const chars = Array.from(term);
  if (chars.length < GRAM) return [];
  const grams = new Set<string>();
  for (let i = 0; i + GRAM <= chars.length; i += GRAM) grams.add(chars.slice(i, i + GRAM).join(''));
  grams.add(chars.slice(chars.length - GRAM).join(''));
  return [...grams];
}

/**
 * The FTS5 query for the terms: every chosen trigram, each a quoted string, ANDed. Undefined
 * when no term is long enough for a trigram (then only the exact check applies).
 */
export function matchExpression(terms: readonly string[]): string | undefined {
  const grams = new Set(terms.flatMap(termTrigrams));
  if (grams.size === 0) return undefined;
  return [...grams].map((gram) => `"${gram.replaceAll('"', '""')}"`).join(' AND ');
}
