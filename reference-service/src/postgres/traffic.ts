// The traffic log on PostgreSQL: appending, the page and total of a filtered list, the streamed
// export through a server-side cursor, and the bulk load of the seeding.
//
// The search gives exactly the SQLite store's matches: the same lower-cased search_text (see
// storage/traffic-search.ts), and every term checked with strpos() on it. The trigram index only
// narrows: it is asked, through `LIKE '%run%'`, for the entries holding every run of three or more
// ASCII letters and digits found in the terms. Such a run lies inside one of pg_trgm's words
// whatever the database's locale, so its trigrams are unpadded and the index finds every entry
// holding it; the padded trigrams of short words between dots and dashes (" 0 " in an address)
// are in most entries, and asking for them would cost more than it narrows. A search with no such
// run (terms of two characters, an address) asks the second index instead, over the text's UTF-8 in
// hexadecimal (see migrations/002_short_terms.sql), for the hexadecimal of each of its terms of
// two or more characters.
import type pg from 'pg';
import type { TrafficLogEntry } from '../records.ts';
import { CHUNK_CHARS, CSV_HEADER } from '../storage/traffic-export.ts';
import type { ExportFormat } from '../storage/traffic-export.ts';
import { searchTerms } from '../storage/traffic-search.ts';
import { insertValues } from '../storage/traffic.ts';
import type { NewTrafficEntry, TrafficFilter, TrafficOrder } from '../storage/traffic.ts';
import type { Queryable } from './records.ts';
import { termHex, type HexSample } from './traffic-sample.ts';

const COLUMN_TYPES = ['integer', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text'];
const COLUMN_NAMES = 'device_id, date_time, action, type, src_ip, dest_ip, dest_port, log_message, extra, search_text';

// Many rows in one statement: one array parameter per column, zipped by unnest.
const INSERT_MANY = `INSERT INTO traffic (${COLUMN_NAMES})
  SELECT * FROM unnest(${COLUMN_TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})`;

/** Appends entries with one statement (one transaction) and returns their ids, in order. */
export async function insertTrafficRows(db: Queryable, entries: readonly NewTrafficEntry[], returnIds = true): Promise<number[]> {
  if (entries.length === 0) return [];
  const columns: unknown[][] = COLUMN_TYPES.map(() => []);
  for (const entry of entries) {
    const values = insertValues(entry);
    for (let i = 0; i < values.length; i++) columns[i]!.push(values[i]);
  }
  // Identity values are taken in the order of the rows, so the ids follow the entries' order.
  const { rows } = await db.query<{ id: number }>(returnIds ? `${INSERT_MANY} RETURNING id` : INSERT_MANY, columns);
  return returnIds ? rows.map((row) => row.id) : [];
}

interface Plan {
  /** FROM and WHERE, shared by the count, the page and the export. */
  body: string;
  orderBy: string;
  params: unknown[];
  searched: boolean;
  /** Nothing can match (a term PostgreSQL cannot hold in text: a NUL character). */
  empty: boolean;
}

/** The runs of the terms the index is asked for (see the top of this file). */
function indexedRuns(terms: readonly string[]): string[] {
  const runs = new Set(terms.flatMap((term) => term.match(/[a-z0-9]{3,}/g) ?? []));
  // A run inside another adds nothing the longer one does not ask for.
  return [...runs].filter((run) => ![...runs].some((other) => other !== run && other.includes(run)));
}

/**
 * The terms to ask the hexadecimal index for: with no run for the first index, those of two or
 * more characters that the sample shows it narrows (see traffic-sample.ts).
 */
async function hexIndexTerms(db: Queryable, sample: HexSample, filter: TrafficFilter): Promise<string[]> {
  const terms = searchTerms(filter.search);
  if (indexedRuns(terms).length > 0) return [];
  return sample.narrowing(
    db,
    filter.deviceId,
    terms.filter((term) => Array.from(term).length >= 2 && !term.includes('\0')),
  );
}

function plan(filter: TrafficFilter, order: TrafficOrder, hexTerms: readonly string[]): Plan {
  const terms = searchTerms(filter.search);
  const actions = [...new Set((filter.actions ?? []).map((a) => a.toLowerCase()).filter((a) => a !== ''))];
  const params: unknown[] = [filter.deviceId];
  const conditions = ['t.device_id = $1'];
  if (actions.length > 0) {
    params.push(actions);
    conditions.push(`t.action = ANY($${params.length}::text[])`);
  }
  const runs = indexedRuns(terms);
  for (const run of runs) {
    params.push(`%${run}%`);
    conditions.push(`t.search_text LIKE $${params.length}`);
  }
  for (const term of hexTerms) {
    params.push(`%${termHex(term)}%`);
    conditions.push(`traffic_search_hex(t.search_text) LIKE $${params.length}`);
  }
  for (const term of terms) {
    if (term.includes('\0')) continue;
    params.push(term);
    conditions.push(`strpos(t.search_text, $${params.length}) > 0`);
  }
  const direction = order.descending ? 'DESC' : 'ASC';
  // The field is one of TRAFFIC_ORDER_FIELDS (checked by the route), each a column of its name.
  const orderBy = order.field === 'id' ? `t.id ${direction}` : `t.${order.field} ${direction}, t.id ${direction}`;
  return {
    body: `FROM traffic t WHERE ${conditions.join(' AND ')}`,
    orderBy,
    params,
    searched: terms.length > 0,
    empty: terms.some((term) => term.includes('\0')),
  };
}

async function count(db: Queryable, filter: TrafficFilter, p: Plan): Promise<number> {
  if (!p.searched) {
    // Without a search the kept counts answer at once.
    const { rows } =
      p.params.length === 1
        ? await db.query<{ n: number }>('SELECT coalesce(sum(n), 0)::bigint AS n FROM traffic_counts WHERE device_id = $1', [filter.deviceId])
        : await db.query<{ n: number }>(
            'SELECT coalesce(sum(n), 0)::bigint AS n FROM traffic_counts WHERE device_id = $1 AND action = ANY($2::text[])',
            p.params,
          );
    return rows[0]!.n;
  }
  return (await db.query<{ n: number }>(`SELECT count(*) AS n ${p.body}`, p.params)).rows[0]!.n;
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

const COLUMNS = 't.id, t.date_time, t.type, t.src_ip, t.dest_ip, t.dest_port, t.log_message, t.extra';

/** A page of a device's traffic and the number of all entries that match the filter (one snapshot). */
export async function listTraffic(
  client: pg.PoolClient,
  filter: TrafficFilter,
  order: TrafficOrder,
  page: { limit: number; offset: number },
  sample: HexSample,
): Promise<{ total: number; data: TrafficLogEntry[] }> {
  const p = plan(filter, order, await hexIndexTerms(client, sample, filter));
  if (p.empty) return { total: 0, data: [] };
  const n = p.params.length;
  if (p.searched) {
    // The matches are found once, by the cheapest way to find them (the trigram index when it
    // narrows): materialized without their order, so that the planner does not walk the order's
    // index through every entry of the device to save a sort of the few matches. Their number
    // comes alongside the page; the page's rows are read last.
    const keys = order.field === 'id' ? 't.id' : `t.id, t.${order.field}`;
    const { rows } = await client.query<EntryRow & { total: number }>(
      `WITH m AS MATERIALIZED (SELECT ${keys} ${p.body})
       SELECT ${COLUMNS}, p.total
       FROM (SELECT t.id, count(*) OVER () AS total FROM m t ORDER BY ${p.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}) p
       JOIN traffic t ON t.id = p.id
       ORDER BY ${p.orderBy}`,
      [...p.params, page.limit, page.offset],
    );
    // A page past the end has no row to carry the number.
    const total = rows[0]?.total ?? (await count(client, filter, p));
    return { total, data: rows.map(({ total: _, ...row }) => ({ ...row, extra: JSON.parse(row.extra) as Record<string, string> })) };
  }
  const total = await count(client, filter, p);
  if (page.offset >= total) return { total, data: [] };
  const { rows } = await client.query<EntryRow>(`SELECT ${COLUMNS} ${p.body} ORDER BY ${p.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`, [
    ...p.params,
    page.limit,
    page.offset,
  ]);
  return { total, data: rows.map((row) => ({ ...row, extra: JSON.parse(row.extra) as Record<string, string> })) };
}

/**
 * How PostgreSQL would find the matches of a filter: the lines of `EXPLAIN`, for an operator's
 * look at a slow search and for the tests, which check that a search goes through an index rather
 * than through every entry of the device.
 */
export async function explainTrafficSearch(db: Queryable, filter: TrafficFilter, order: TrafficOrder, sample: HexSample): Promise<string[]> {
  const p = plan(filter, order, await hexIndexTerms(db, sample, filter));
  const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT t.id ${p.body}`, p.params);
  return rows.map((row) => row['QUERY PLAN']);
}

// RFC 4180 quoting, as the SQLite store's export writes it: every text field quoted, its quotes doubled.
const csvText = (column: string) => `replace(${column}, '"', '""')`;
const CSV_LINE = `t.id || ',"' || ${['t.date_time', 't.type', 't.src_ip', 't.dest_ip', 't.dest_port', 't.log_message', 't.extra']
  .map(csvText)
  .join(` || '","' || `)} || E'"\\r\\n'`;

/** One NDJSON line from a row: the entry object as the JSON list serves it, `extra` as stored. */
function ndjsonLine(row: EntryRow): string {
  const head = JSON.stringify({
    id: row.id,
    date_time: row.date_time,
    type: row.type,
    src_ip: row.src_ip,
    dest_ip: row.dest_ip,
    dest_port: row.dest_port,
    log_message: row.log_message,
  });
  return `${head.slice(0, -1)},"extra":${row.extra}}\n`;
}

// Rows fetched from the cursor at a time: a few hundred KiB of text.
const FETCH_ROWS = 1000;

/**
 * The export's text in chunks, read through a server-side cursor in a read-only REPEATABLE READ
 * transaction (one snapshot, as the SQLite store's export reads) on a connection of the export
 * pool: the service holds one fetch of rows at a time, and asks for the next only when the
 * consumer has taken the last chunk, so a slow client holds back its own download and its one
 * connection, nothing else. Ending the iteration early (the client went away) closes the cursor
 * and gives the connection back.
 */
export async function* exportTraffic(
  pool: pg.Pool,
  filter: TrafficFilter,
  order: TrafficOrder,
  format: ExportFormat,
  sample: HexSample,
): AsyncGenerator<string, void, undefined> {
  const client = await pool.connect();
  let healthy = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const p = plan(filter, order, await hexIndexTerms(client, sample, filter));
    let chunk = format === 'csv' ? CSV_HEADER : '';
    if (!p.empty) {
      const select = format === 'csv' ? `SELECT ${CSV_LINE} AS line` : `SELECT ${COLUMNS}`;
      await client.query(`DECLARE export NO SCROLL CURSOR FOR ${select} ${p.body} ORDER BY ${p.orderBy}`, p.params);
      for (;;) {
        const { rows } = await client.query<EntryRow & { line: string }>(`FETCH ${FETCH_ROWS} FROM export`);
        for (const row of rows) {
          chunk += format === 'csv' ? row.line : ndjsonLine(row);
          if (chunk.length >= CHUNK_CHARS) {
            yield chunk;
            chunk = '';
          }
        }
        if (rows.length < FETCH_ROWS) break;
      }
    }
    if (chunk !== '') yield chunk;
    await client.query('COMMIT');
    healthy = true;
  } finally {
    if (!healthy) await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
}

/**
 * Loads many entries into the traffic table inside the caller's transaction (the seeding): the
 * table's secondary indexes are dropped, the rows inserted in batches, and the indexes built again
 * from their definitions in one pass each, which is many times faster than keeping them up to date
 * row by row. Returns the number of entries loaded.
 */
export async function bulkInsertTraffic(client: pg.PoolClient, entries: Iterable<NewTrafficEntry>): Promise<number> {
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
     WHERE i.schemaname = current_schema() AND i.tablename = 'traffic'
       AND i.indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = 'traffic'::regclass)`,
  );
  await client.query('SET LOCAL statement_timeout = 0');
  await client.query(`SET LOCAL maintenance_work_mem = '256MB'`);
  for (const { name } of indexes) await client.query(`DROP INDEX "${name.replaceAll('"', '""')}"`);
  let batch: NewTrafficEntry[] = [];
  let n = 0;
  for (const entry of entries) {
    batch.push(entry);
    if (batch.length === 5000) {
      await insertTrafficRows(client, batch, false);
      n += batch.length;
      batch = [];
    }
  }
  await insertTrafficRows(client, batch, false);
  n += batch.length;
  for (const { definition } of indexes) await client.query(definition);
  return n;
}
