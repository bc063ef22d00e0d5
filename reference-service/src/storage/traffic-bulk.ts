import type { Database } from './database.ts';
import { nonAsciiCharacters } from './traffic-search.ts';
import { addSearchCharacters, insertStatement, insertValues, SEARCH_TEXT } from './traffic.ts';
import type { NewTrafficEntry } from './traffic.ts';

interface SchemaObject {
  type: 'index' | 'trigger';
  name: string;
  sql: string;
}

// FTS5 buffers new index entries in memory and writes a segment each time the buffer fills: a
// large buffer during the rebuild means few, large segments and little merging (1 MiB is FTS5's
// default, put back afterwards so that live inserts keep small transactions small).
const BULK_HASH_SIZE = 128 * 1024 * 1024;
const DEFAULT_HASH_SIZE = 1024 * 1024;

/**
 * Loads many entries into an empty traffic table, much faster than inserting them one by one:
 * the table's indexes and triggers are dropped, the rows inserted with one prepared statement,
 * and then the search index is built in one pass over the table, the indexes created, and the
 * counts and order flags computed, before the indexes and triggers come back as the migration
 * wrote them. All in one transaction (a savepoint inside the caller's), so a failure leaves the
 * database as it was. Returns the number of entries loaded. Call `analyzeAfterBulkLoad` once the
 * transaction has committed.
 */
export function bulkInsertTraffic(db: Database, entries: Iterable<NewTrafficEntry>): number {
  // Let CREATE INDEX sort with a helper thread.
  const threads = db.pragma('threads', { simple: true }) as number;
  db.pragma('threads = 2');
  const load = db.transaction((): number => {
    if (db.prepare('SELECT 1 FROM traffic LIMIT 1').get() !== undefined) {
      throw new Error('bulkInsertTraffic needs an empty traffic table');
    }
    const saved = db
      .prepare<[], SchemaObject>(
        `SELECT type, name, sql FROM sqlite_schema
         WHERE tbl_name = 'traffic' AND type IN ('index', 'trigger') AND sql IS NOT NULL`,
      )
      .all();
    for (const object of saved) db.exec(`DROP ${object.type.toUpperCase()} "${object.name}"`);

    const insert = insertStatement(db);
    // What the order-check trigger would have found: devices with an entry dated before one
    // appended earlier.
    const lastDateTime = new Map<number, string>();
    const outOfOrder = new Set<number>();
    const chars = new Set<string>();
    let n = 0;
    for (const entry of entries) {
      const values = insertValues(entry);
      insert.run(...values);
      for (const ch of nonAsciiCharacters(values[SEARCH_TEXT] as string)) chars.add(ch);
      const last = lastDateTime.get(entry.device_id);
      if (last !== undefined && entry.date_time < last) outOfOrder.add(entry.device_id);
      else lastDateTime.set(entry.device_id, entry.date_time);
      n++;
    }

    db.exec(`INSERT INTO traffic_search (traffic_search, rank) VALUES ('hashsize', ${BULK_HASH_SIZE})`);
    db.exec(`INSERT INTO traffic_search (traffic_search) VALUES ('rebuild')`);
    addSearchCharacters(db, chars);
    db.exec(`INSERT INTO traffic_search (traffic_search, rank) VALUES ('hashsize', ${DEFAULT_HASH_SIZE})`);

    for (const object of saved) if (object.type === 'index') db.exec(object.sql);
    db.exec(`INSERT INTO traffic_counts (device_id, action, n)
             SELECT device_id, coalesce(action, ''), count(*) FROM traffic GROUP BY device_id, action`);
    const clearFlag = db.prepare('UPDATE devices SET traffic_in_order = 0 WHERE id = ?');
    for (const deviceId of outOfOrder) clearFlag.run(deviceId);
    for (const object of saved) if (object.type === 'trigger') db.exec(object.sql);
    return n;
  });
  try {
    return load.immediate();
  } finally {
    db.pragma(`threads = ${threads}`);
  }
}

/**
 * After a bulk load has committed: statistics for the query planner (a sample of each index is
 * enough), and the write-ahead log folded into the file and emptied, as it has grown to the size
 * of everything just written.
 */
export function analyzeAfterBulkLoad(db: Database): void {
  const limit = db.pragma('analysis_limit', { simple: true }) as number;
  db.pragma('analysis_limit = 1000');
  db.exec('ANALYZE');
  db.pragma(`analysis_limit = ${limit}`);
  if (!db.memory) db.pragma('wal_checkpoint(TRUNCATE)');
}
