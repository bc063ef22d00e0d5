import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import type { Database, Statement } from 'better-sqlite3';

export type { Database } from 'better-sqlite3';

/**
 * The package's folder, found by walking up from this module to the package.json named
 * reference-service: this module runs from src/storage/ in the tests and from the one-file bundle
 * dist/index.js in production, and both find the migrations from the package folder.
 */
export function packageRoot(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'reference-service') return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json named reference-service above ${start}`);
  }
}

/** The .sql files, kept as files (not bundled) and applied in the order of their names. */
const MIGRATIONS_DIR = join(packageRoot(), 'src', 'storage', 'migrations');

/**
 * Opens (creating when needed) the service's SQLite database and brings its schema up to date.
 * `:memory:` gives a throwaway database; a file path gets its folder created and WAL journaling.
 */
export function openDatabase(path: string): Database {
  const inMemory = path === ':memory:' || path === '';
  if (!inMemory) mkdirSync(dirname(path), { recursive: true });
  const db = new BetterSqlite3(path);
  try {
    // WAL lets readers (list, export) proceed while a write commits; NORMAL is durable enough
    // under WAL (a power cut may lose the last commits, never corrupt the file).
    // First: processes started at once on one new file wait for each other's locks.
    db.pragma('busy_timeout = 5000');
    if (!inMemory) whenNotBusy(() => db.pragma('journal_mode = WAL'));
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    applyMigrations(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Names of the migration files, in the order they apply. */
export function migrationNames(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((name) => name.endsWith('.sql'))
    .sort();
}

// How long a start waits for another process's write (its migration or seeding of the same new
// file, which may take a while for a large seed); each try waits busy_timeout for the write lock.
const START_WAIT_MS = 10 * 60_000;

/**
 * Runs `write` (which takes the write lock), trying again while another process holds the file's
 * write lock, for up to START_WAIT_MS: processes started at once on one file take turns.
 */
export function whenNotBusy<T>(write: () => T): T {
  const deadline = Date.now() + START_WAIT_MS;
  for (;;) {
    try {
      return write();
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
    }
  }
}

function applyMigrations(db: Database): void {
  const hasTable = db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'`);
  if (hasTable.get() === undefined) {
    whenNotBusy(() =>
      db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        name TEXT PRIMARY KEY,
        applied_at TEXT NOT NULL
      )`),
    );
  }
  const isApplied = db.prepare<[string], { name: string }>('SELECT name FROM schema_migrations WHERE name = ?');
  const record = db.prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)');
  for (const name of migrationNames()) {
    // Read first: a start on a migrated file takes no write lock (another process may hold it).
    if (isApplied.get(name)) continue;
    const sql = readFileSync(join(MIGRATIONS_DIR, name), 'utf8');
    // IMMEDIATE takes the write lock before the check, so two processes opening one new file
    // cannot both apply the same migration.
    const apply = db.transaction(() => {
      if (isApplied.get(name)) return;
      db.exec(sql);
      record.run(name, new Date().toISOString());
    });
    whenNotBusy(() => apply.immediate());
  }
}

const statementCache = new WeakMap<Database, Map<string, Statement>>();

/** A prepared statement for `sql`, prepared once per database. */
export function statement<P extends unknown[] = unknown[], R = unknown>(db: Database, sql: string): Statement<P, R> {
  let cache = statementCache.get(db);
  if (!cache) {
    cache = new Map();
    statementCache.set(db, cache);
  }
  let prepared = cache.get(sql);
  if (!prepared) {
    prepared = db.prepare(sql);
    cache.set(sql, prepared);
  }
  return prepared as unknown as Statement<P, R>;
}

/** The current time as the service writes it: RFC 3339, UTC, with milliseconds. */
export function nowTimestamp(): string {
  return new Date().toISOString();
}
