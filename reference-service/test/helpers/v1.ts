// The suites' client of the service: the package's test harness (src/testing.ts), with every
// response checked against the OpenAPI document, and the check of a failure envelope.
import { expect, inject } from 'vitest';
import pg from 'pg';
import { PostgresStore, startTestV1 as start, v1Request as send, type TestV1, type V1RequestOptions, type V1Response } from '../../src/testing.ts';
import type { V1ServiceOptions } from '../../src/testing.ts';
import { assertV1Response } from './openapi.ts';

/** The store the suites run on: SQLite, or PostgreSQL under vitest.postgres.config.ts. */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.V1_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

let databases = 0;

/** An empty database on the run's PostgreSQL server (see postgres-setup.ts), as a URL. */
export async function createTestDatabase(): Promise<string> {
  const admin = new URL(inject('postgresAdminUrl'));
  const name = `v1_${process.pid}_${++databases}`;
  const client = new pg.Client({ connectionString: admin.href });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  admin.pathname = `/${name}`;
  return admin.href;
}

/** The package's test service, on a database of its own on PostgreSQL when the suites run there. */
export async function startTestV1(options: V1ServiceOptions = {}): Promise<TestV1> {
  if (TEST_STORE === 'postgres' && options.database === undefined) options = { ...options, database: await createTestDatabase() };
  return start(options);
}

/**
 * Rows of one SQL statement run behind the service's back, written with `?` parameters (portable
 * SQL only): on SQLite through its database, on PostgreSQL through the store's pool.
 */
export async function dbRows<T = Record<string, unknown>>(service: TestV1, sql: string, params: unknown[] = []): Promise<T[]> {
  if (service.store instanceof PostgresStore) {
    let n = 0;
    return (await service.store.pool.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows as T[];
  }
  const statement = service.db.prepare(sql);
  if (!statement.reader) {
    statement.run(...params);
    return [];
  }
  return statement.all(...params) as T[];
}

export {
  TEST_API_KEYS,
  TEST_KEYS,
  TEST_ORGANIZATIONS,
  type TestV1,
  type V1RequestOptions,
  type V1Response,
} from '../../src/testing.ts';

export async function v1Request(service: { url: string }, method: string, path: string, options: V1RequestOptions = {}): Promise<V1Response> {
  const response = await send(service, method, path, options);
  assertV1Response({ method, url: path }, { status: response.status, headers: response.headers, body: response.body });
  return response;
}

/**
 * A v1 failure envelope: the status, `error` 1, only `error` and `messages`, the messages' codes
 * and fields in order, and each message with a non-empty text and no other key.
 */
export function expectV1Failure(response: V1Response, status: number, expected: { code: string; field?: string }[]): void {
  expect(response.status).toBe(status);
  expect(response.json.error).toBe(1);
  expect(Object.keys(response.json).sort()).toEqual(['error', 'messages']);
  expect(response.json.messages.map((m: { code: string; field?: string }) => ({ code: m.code, field: m.field }))).toEqual(
    expected.map(({ code, field }) => ({ code, field })),
  );
  for (const message of response.json.messages) {
    expect(typeof message.message).toBe('string');
    expect(message.message.length).toBeGreaterThan(0);
    expect(Object.keys(message).every((key) => ['code', 'message', 'field'].includes(key))).toBe(true);
  }
}
