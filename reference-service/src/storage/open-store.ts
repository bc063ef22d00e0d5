// Which store `V1_DATABASE` names: a postgres:// or postgresql:// URL is PostgreSQL; anything
// else that is not a URL is a SQLite file (or `:memory:`). A URL of another scheme is refused
// rather than taken for a file path, which would quietly create a folder named after the scheme.
import { openPostgresStore } from '../postgres/store.ts';
import { openDatabase } from './database.ts';
import { SqliteStore } from './sqlite-store.ts';
import type { V1Store } from './store.ts';

/** A V1_DATABASE that cannot be used. The message is one line naming the setting, never a password. */
export class DatabaseSettingError extends Error {
  constructor(message: string) {
    super(`V1_DATABASE: ${message}`);
    this.name = 'DatabaseSettingError';
  }
}

const URL_SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

/** The store kind a V1_DATABASE value names; throws DatabaseSettingError for another URL scheme. */
export function storeKind(database: string): 'sqlite' | 'postgres' {
  const scheme = URL_SCHEME.exec(database)?.[1]?.toLowerCase();
  if (scheme === undefined) return 'sqlite';
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgres';
  throw new DatabaseSettingError(`the scheme "${scheme}" is not supported: give a SQLite file path, :memory:, or a postgres:// URL`);
}

/** V1_DATABASE as it may be shown (a banner, a log line): a URL's password replaced by `***`. */
export function shownDatabase(database: string): string {
  if (!URL_SCHEME.test(database)) return database;
  try {
    const url = new URL(database);
    if (url.password) url.password = '***';
    return url.href;
  } catch {
    return `${database.slice(0, database.indexOf('://') + 3)}…`;
  }
}

export interface OpenStoreOptions {
  log: (line: string) => void;
}

/** Opens the store `database` names, its schema migrated. */
export async function openStore(database: string, { log }: OpenStoreOptions): Promise<V1Store> {
  if (storeKind(database) === 'postgres') return openPostgresStore(database, { log, settingError: (m) => new DatabaseSettingError(m) });
  return new SqliteStore(openDatabase(database));
}
