import BetterSqlite3 from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type { TrafficLogEntry } from '../records.ts';
import type { Database } from './database.ts';
import { statement } from './database.ts';
import {
  anyOfExpression,
  ASCII_ALPHABET,
  chooseTrigrams,
  indexDecides,
  matchExpression,
  nonAsciiCharacters,
  popcount,
  searchTerms,
  searchText,
  trigramsAround,
} from './traffic-search.ts';
import { trigramSample } from './traffic-stats.ts';

/** The fields the traffic list may be ordered by. */
export const TRAFFIC_ORDER_FIELDS = ['date_time', 'id', 'type', 'src_ip', 'dest_ip', 'dest_port'] as const;

export type TrafficOrderField = (typeof TRAFFIC_ORDER_FIELDS)[number];

export interface TrafficOrder {
  field: TrafficOrderField;
  descending: boolean;
}

export interface TrafficFilter {
  deviceId: number;
  /** Entries whose `extra.action` equals one of these, ignoring case (none: no filter). */
  actions?: readonly string[];
  /** The search string as the client sent it (see traffic-search.ts). */
  search?: string;
}

/** An entry to store: the wire fields without id, and the device it belongs to. */
export interface NewTrafficEntry extends Omit<TrafficLogEntry, 'id'> {
  device_id: number;
}

const INSERT_SQL = `INSERT INTO traffic
  (device_id, date_time, action, type, src_ip, dest_ip, dest_port, log_message, extra, search_text)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The values of INSERT_SQL for one entry. */
export function insertValues(entry: NewTrafficEntry): unknown[] {
  const action = entry.extra.action;
  return [
    entry.device_id,
    entry.date_time,
    typeof action === 'string' && action !== '' ? action.toLowerCase() : null,
    entry.type,
    entry.src_ip,
    entry.dest_ip,
    entry.dest_port,
    entry.log_message,
    JSON.stringify(entry.extra),
    searchText(entry),
  ];
}

export function insertStatement(db: Database): Statement<unknown[]> {
  return statement<unknown[]>(db, INSERT_SQL);
}

/**
 * Appends one entry and returns its id. Triggers keep the search index, the counts and the
 * device's order flag in step (see the migration).
 */
export function insertTraffic(db: Database, entry: NewTrafficEntry): number {
  const values = insertValues(entry);
  const chars = nonAsciiCharacters(values[SEARCH_TEXT] as string);
  if (chars.length === 0) return Number(insertStatement(db).run(...values).lastInsertRowid);
  // In one transaction: a search never sees the entry without the characters it is written in.
  return db.transaction(() => {
    addSearchCharacters(db, chars);
    return Number(insertStatement(db).run(...values).lastInsertRowid);
  })();
}

/** Where search_text is among insertValues' values. */
export const SEARCH_TEXT = 9;

/** Keeps characters other than ASCII in the search's alphabet (see trigramsAround). */
export function addSearchCharacters(db: Database, chars: Iterable<string>): void {
  const add = statement<[string]>(db, 'INSERT OR IGNORE INTO traffic_search_chars (ch) VALUES (?)');
  for (const ch of chars) add.run(ch);
}

const COLUMNS = 't.id, t.date_time, t.type, t.src_ip, t.dest_ip, t.dest_port, t.log_message, t.extra';

// Terms checked by an instr() each; any more are checked together through json_each, which keeps
// the statement small (SQLite bounds the depth of an expression) and the number of distinct
// statement texts, which are prepared once each and kept, bounded.
const SEPARATE_CHECKS = 16;

interface Plan {
  /** FROM and WHERE, shared by the count and the rows. */
  body: string;
  orderBy: string;
  params: Record<string, unknown>;
  searched: boolean;
}

function plan(db: Database, filter: TrafficFilter, order: TrafficOrder): Plan {
  const terms = searchTerms(filter.search);
  const indexed = terms.length > 0 ? indexedSearch(db, filter.deviceId, terms) : undefined;
  const grams = indexed?.grams ?? [];
  const match = indexed?.match;
  const unindexed = indexed?.unindexed ?? [];
  const actions = [...new Set((filter.actions ?? []).map((a) => a.toLowerCase()).filter((a) => a !== ''))];
  const params: Record<string, unknown> = { device: filter.deviceId };
  const conditions: string[] = [];
  if (match !== undefined && unindexed.length > 0) {
    conditions.push(
      '(t.id IN (SELECT rowid FROM traffic_search WHERE traffic_search MATCH @match) OR t.id IN (SELECT value FROM json_each(@unindexed)))',
    );
    params.match = match;
    params.unindexed = JSON.stringify(unindexed);
  } else if (match !== undefined) {
    conditions.push('traffic_search MATCH @match');
    params.match = match;
  }
  conditions.push('t.device_id = @device');
  if (actions.length > 0) {
    conditions.push('t.action IN (SELECT value FROM json_each(@actions))');
    params.actions = JSON.stringify(actions);
  }
  // The index narrows; instr() decides, except for a three-character term that the index query
  // asked for by itself.
  const checked = terms.filter((term) => !(indexDecides(term) && grams.includes(term)));
  checked.slice(0, SEPARATE_CHECKS).forEach((term, i) => {
    conditions.push(`instr(t.search_text, @term${i}) > 0`);
    params[`term${i}`] = term;
  });
  if (checked.length > SEPARATE_CHECKS) {
    conditions.push('NOT EXISTS (SELECT 1 FROM json_each(@moreTerms) WHERE instr(t.search_text, value) = 0)');
    params.moreTerms = JSON.stringify(checked.slice(SEPARATE_CHECKS));
  }
  const joined = match !== undefined && unindexed.length === 0;
  const from = joined ? 'traffic_search s JOIN traffic t ON t.id = s.rowid' : 'traffic t';
  const direction = order.descending ? 'DESC' : 'ASC';
  let orderBy: string;
  if (joined && (order.field === 'id' || (order.field === 'date_time' && inOrder(db, filter.deviceId)))) {
    // The index hands out matches in id order: with the device's ids in date_time order too,
    // the first page is found without looking at the other matches.
    orderBy = `s.rowid ${direction}`;
  } else if (order.field === 'id') {
    orderBy = `t.id ${direction}`;
  } else {
    orderBy = `t.${order.field} ${direction}, t.id ${direction}`;
  }
  return {
    body: `FROM ${from} WHERE ${conditions.join(' AND ')}`,
    orderBy,
    params,
    searched: terms.length > 0,
  };
}

/** How the index is asked for a search's candidates. */
interface IndexedSearch {
  match: string;
  /** The trigrams asked for, all required (none when a two-character term's are asked for). */
  grams: string[];
  /** The device's entries the index cannot find (see traffic_unindexed): candidates too. */
  unindexed: number[];
}

/**
 * How to ask the search index, or undefined when checking each of the device's entries costs less
 * than checking what the index would let through: the index covers every device, so for a device
 * with few entries beside a busy one, its own entries are the shorter list.
 *
 * Trigrams of the terms of three or more characters come first (chooseTrigrams). When none is
 * worth asking for, a term of two characters is asked for as the union of the lists of every
 * trigram holding it (trigramsAround), plus the device's few entries that the union cannot find.
 * That union walks more lists than a trigram does: it is asked for only when it lets through
 * fewer than half the device's entries (a term in most entries is found as fast by checking all).
 */
function indexedSearch(db: Database, deviceId: number, terms: readonly string[]): IndexedSearch | undefined {
  const sample = trigramSample(db);
  const choice = chooseTrigrams(terms, sample);
  if (choice.grams.length > 0) {
    return deviceEntries(db, deviceId) <= choice.candidates ? undefined : { match: matchExpression(choice.grams), grams: choice.grams, unindexed: [] };
  }
  const alphabet = searchAlphabet(db);
  let best: { grams: string[]; holders: number } | undefined;
  for (const term of terms) {
    const grams = trigramsAround(term, alphabet);
    if (grams === undefined) continue;
    const holders = sample.size === 0 ? 0 : popcount(sample.holders(term)) / sample.size;
    if (best === undefined || holders < best.holders) best = { grams, holders };
  }
  if (best === undefined || 2 * best.holders * sample.population >= deviceEntries(db, deviceId)) return undefined;
  return { match: anyOfExpression(best.grams), grams: [], unindexed: unindexedEntries(db, deviceId) };
}

/** Every character a search text may hold: ASCII, and those others kept as entries arrived. */
function searchAlphabet(db: Database): string[] {
  return [...ASCII_ALPHABET, ...statement<[], string>(db, 'SELECT ch FROM traffic_search_chars').pluck().all()];
}

function unindexedEntries(db: Database, deviceId: number): number[] {
  return statement<[number], number>(
    db,
    'SELECT id FROM traffic WHERE device_id = ? AND (length(search_text) < 3 OR instr(search_text, char(0)) > 0)',
  )
    .pluck()
    .all(deviceId);
}

function deviceEntries(db: Database, deviceId: number): number {
  return statement<[number], { n: number }>(db, 'SELECT coalesce(sum(n), 0) AS n FROM traffic_counts WHERE device_id = ?').get(
    deviceId,
  )!.n;
}

function inOrder(db: Database, deviceId: number): boolean {
  const row = statement<[number], { traffic_in_order: number }>(db, 'SELECT traffic_in_order FROM devices WHERE id = ?').get(
    deviceId,
  );
  return row?.traffic_in_order === 1;
}

function count(db: Database, filter: TrafficFilter, p: Plan): number {
  if (!p.searched) {
    // Without a search the kept counts answer at once.
    const actions = p.params.actions;
    const row = statement<[Record<string, unknown>], { n: number }>(
      db,
      actions === undefined
        ? 'SELECT coalesce(sum(n), 0) AS n FROM traffic_counts WHERE device_id = @device'
        : `SELECT coalesce(sum(n), 0) AS n FROM traffic_counts
           WHERE device_id = @device AND action IN (SELECT value FROM json_each(@actions))`,
    ).get(actions === undefined ? { device: filter.deviceId } : { device: filter.deviceId, actions });
    return row!.n;
  }
  return statement<[Record<string, unknown>], { n: number }>(db, `SELECT count(*) AS n ${p.body}`).get(p.params)!.n;
}

interface EntryRow {
  id: number;
  date_time: string;
  type: string;
  src_ip: string;
  dest_ip: string;
  dest_port: string;
  log_message: string;
  extra: string;
}

/** A page of a device's traffic and the number of all entries that match the filter. */
export function listTraffic(
  db: Database,
  filter: TrafficFilter,
  order: TrafficOrder,
  page: { limit: number; offset: number },
): { total: number; data: TrafficLogEntry[] } {
  const p = plan(db, filter, order);
  const total = count(db, filter, p);
  if (page.offset >= total) return { total, data: [] };
  const rows = statement<[Record<string, unknown>], EntryRow>(
    db,
    `SELECT ${COLUMNS} ${p.body} ORDER BY ${p.orderBy} LIMIT @limit OFFSET @offset`,
  ).all({ ...p.params, limit: page.limit, offset: page.offset });
  return {
    total,
    data: rows.map((row) => ({ ...row, extra: JSON.parse(row.extra) as Record<string, string> })),
  };
}

/**
 * For every entry that matches, in order, the value of `expression` (SQL over the entry's columns,
 * table alias `t`), read lazily. On a database file the rows come from a read-only connection of
 * their own, opened here and closed when the iteration ends (finished, or `return()`ed by a
 * consumer that stops early): under WAL it reads one consistent snapshot while the service goes
 * on writing. An in-memory database has no file a second connection could open: the export reads
 * a copy of it (a snapshot, deserialized into a connection of its own), since an iteration left
 * open on the service's one connection would make every other request fail as "busy" for as long
 * as a slow client takes to read.
 */
export function* iterateTraffic<T>(
  db: Database,
  filter: TrafficFilter,
  order: TrafficOrder,
  expression: string,
): Generator<T, void, undefined> {
  const reader = db.memory ? new BetterSqlite3(db.serialize()) : new BetterSqlite3(db.name, { readonly: true, fileMustExist: true });
  try {
    // A small page cache: the export reads each page once, in order.
    if (!db.memory) reader.pragma('cache_size = -4096');
    const p = plan(reader, filter, order);
    // Not the statement cache: two exports at once must not share one iterating statement.
    const values = reader.prepare<[Record<string, unknown>], T>(`SELECT ${expression} ${p.body} ORDER BY ${p.orderBy}`).pluck();
    yield* values.iterate(p.params);
  } finally {
    reader.close();
  }
}

/**
 * How SQLite would find the total of a filter: the lines of `EXPLAIN QUERY PLAN`, for an
 * operator's look at a slow search and for the tests, which check that a search goes through the
 * index rather than through every entry of the device.
 */
export function explainTrafficSearch(db: Database, filter: TrafficFilter, order: TrafficOrder): string[] {
  const p = plan(db, filter, order);
  return statement<[Record<string, unknown>], { detail: string }>(db, `EXPLAIN QUERY PLAN SELECT count(*) ${p.body}`)
    .all(p.params)
    .map((row) => row.detail);
}
