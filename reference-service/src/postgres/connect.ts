// The connection to PostgreSQL: one bounded pool for requests, one for exports (each export holds
// a connection for as long as its client takes to read), statement timeouts on every connection,
// and start-up failures turned into one line naming V1_DATABASE, never its password.
import pg from 'pg';
import type { PoolConfig } from 'pg';

/** Connections for requests, per process. */
export const POOL_SIZE = 10;
/** Exports streamed at once, per process; a further export waits for one to finish. */
export const EXPORT_POOL_SIZE = 4;
/** No query of a request runs longer (each FETCH of an export counts as one). */
export const STATEMENT_TIMEOUT_MS = 30_000;
const CONNECT_TIMEOUT_MS = 10_000;

// int8 (count(*), bigint ids) as a JavaScript number rather than a string: ids and counts stay far
// below 2^53. numeric is not used.
const INT8 = 20;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 && format !== 'binary') return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

/** Where a URL points, for messages: user, host, port and database, never the password. */
export function describeTarget(url: URL): string {
  const user = url.username ? `${decodeURIComponent(url.username)}@` : '';
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || '(default database)';
  return `${user}${url.hostname || 'localhost'}:${url.port || '5432'}/${database}`;
}

/** The URL, checked enough to connect with; a message (without the value) when it is not one. */
export function parseDatabaseUrl(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The value is not repeated: it may hold a password.
    return 'not a valid postgres:// URL';
  }
  if (!url.hostname) return 'the postgres:// URL names no host';
  return url;
}

/** A start-up failure as one line (the caller prefixes V1_DATABASE). */
export function describeConnectError(error: unknown, url: URL): string {
  const target = describeTarget(url);
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  switch (code) {
    case '28P01':
    case '28000':
      return `PostgreSQL at ${target} refused the credentials (wrong user or password)`;
    case '3D000':
      return `the database at ${target} does not exist`;
    case '42501':
      return `the user at ${target} lacks a privilege the service needs (creating its tables and the pg_trgm extension)`;
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
      return `cannot reach the PostgreSQL server at ${target} (${code})`;
  }
  const text = typeof message === 'string' ? message : String(error);
  // pg's own message, with anything that could be the password taken out, on one line.
  const password = url.password ? decodeURIComponent(url.password) : '';
  const safe = (password ? text.split(password).join('***') : text).split('\n')[0];
  return `cannot use PostgreSQL at ${target}: ${safe}`;
}

export function createPool(url: URL, max: number, extra: Partial<PoolConfig> = {}): pg.Pool {
  return new pg.Pool({
    connectionString: url.href,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    // A transaction left open by a defect does not hold its locks for ever.
    idle_in_transaction_session_timeout: 60_000,
    application_name: 'reference-service',
    types,
    ...extra,
  });
}

/** A client of `pool` for a transaction: BEGIN, `work`, COMMIT; ROLLBACK when it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
