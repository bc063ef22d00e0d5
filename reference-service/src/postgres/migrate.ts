// The PostgreSQL schema, brought up to date on start by whichever process comes first: the
// migrations run in one transaction under an advisory lock, so processes started at once take
// turns, and the ones after the first find every migration applied.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { packageRoot } from '../storage/database.ts';
import { inTransaction } from './connect.ts';

const MIGRATIONS_DIR = join(packageRoot(), 'src', 'postgres', 'migrations');

// Advisory lock keys of the service (any two bigints that nothing else on the database uses).
export const MIGRATION_LOCK = 0x76315f6d; // 'v1_m'
export const SEED_LOCK = 0x76315f73; // 'v1_s'

export function postgresMigrationNames(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((name) => name.endsWith('.sql'))
    .sort();
}

/** Applies the migrations not applied yet; returns their names. */
export async function migrate(pool: pg.Pool): Promise<string[]> {
  return inTransaction(pool, async (client) => {
    // Waiting for another process's migration is not a slow query.
    await client.query('SET LOCAL statement_timeout = 0');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at text NOT NULL)`);
    const applied = new Set((await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
    const done: string[] = [];
    for (const name of postgresMigrationNames()) {
      if (applied.has(name)) continue;
      // A file of several statements: the simple query protocol (no parameters) runs them all.
      await client.query(readFileSync(join(MIGRATIONS_DIR, name), 'utf8'));
      await client.query('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [name, new Date().toISOString()]);
      done.push(name);
    }
    return done;
  });
}
