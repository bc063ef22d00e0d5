// What tests outside the package need to set up and check data behind the service's back: the
// public entry, the storage functions, the seed generators and the record types, plus a service
// started the way every suite starts one (port 0, in-memory SQLite, known keys and organizations).
// Exported under the `source` condition only: it is never built, and a production process cannot
// load it by mistake.
import type { OrganizationRef } from './records.ts';
import { startV1Service, type V1Service, type V1ServiceOptions } from './server.ts';

export * from './index.ts';
export type * from './records.ts';
export { openDatabase, type Database } from './storage/database.ts';
export type { V1Store } from './storage/store.ts';
export { PostgresStore } from './postgres/store.ts';
export { getOrganization, insertOrganization } from './storage/organizations.ts';
export { insertFramework } from './storage/frameworks.ts';
export { getWebProtectionRecord, insertWebProtectionRecord, listWebProtectionRecords } from './storage/web-protection.ts';
export { insertTraffic, type NewTrafficEntry } from './storage/traffic.ts';
export { createRng, DEFAULT_SEED_SIZES, makeLiveTrafficEntry, type Rng } from './seed/generate.ts';

/** Keys every test service accepts (stored through `apiKeys`, as `V1_API_KEYS` would). */
export const TEST_KEYS = {
  /** Every organization. */
  admin: 'test-admin-key-0000',
  /** Organization 1 only. */
  org1: 'test-org1-key-1111',
  /** Organization 2 only. */
  org2: 'test-org2-key-2222',
} as const;

export const TEST_API_KEYS = `${TEST_KEYS.admin}=*,${TEST_KEYS.org1}=1,${TEST_KEYS.org2}=2`;

/** The organizations a service started with `seed: 'none'` gets (ids 1, 2, 3). */
export const TEST_ORGANIZATIONS: readonly OrganizationRef[] = [
  { id: 1, name: 'Northwind Health', logo: 'https://logos.example.com/northwind.png' },
  { id: 2, name: 'Contoso Bank', logo: 'https://logos.example.com/contoso.png' },
  { id: 3, name: 'Fabrikam Energy', logo: 'https://logos.example.com/fabrikam.png' },
];

export interface TestV1 extends V1Service {
  /** Every line the service logged. */
  logs: string[];
}

/**
 * A service on port 0 with `:memory:` unless `database` is given (a SQLite path or a postgres:// URL), the TEST_KEYS, and
 * `seed: 'none'` plus TEST_ORGANIZATIONS unless `seed: 'demo'` is asked for (then the demo
 * organizations, with small seed sizes unless given).
 */
export async function startTestV1(options: V1ServiceOptions = {}): Promise<TestV1> {
  const logs: string[] = [];
  const seed = options.seed ?? 'none';
  const service = await startV1Service({
    database: ':memory:',
    apiKeys: TEST_API_KEYS,
    seedSizes: { devices: 12, traffic: 400, hotTraffic: 0 },
    ...options,
    seed,
    port: 0,
    host: '127.0.0.1',
    logger: (line) => {
      logs.push(line);
      options.logger?.(line);
    },
  });
  if (seed === 'none' && !(await service.store.organizationExists(TEST_ORGANIZATIONS[0]!.id))) {
    for (const organization of TEST_ORGANIZATIONS) await service.store.insertOrganization(organization);
  }
  return Object.assign(service, { logs });
}

export interface V1RequestOptions {
  /** The X-Service-Token; defaults to the admin key, `null` sends none. */
  token?: string | null;
  /** Sent as JSON with `Content-Type: application/json`. */
  body?: unknown;
  /** Sent as is (set the content type through `headers`). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface V1Response {
  status: number;
  headers: Headers;
  body: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: any;
}

/** One request to the service, as a client sends it. */
export async function v1Request(
  service: { url: string },
  method: string,
  path: string,
  { token = TEST_KEYS.admin, body, rawBody, headers = {} }: V1RequestOptions = {},
): Promise<V1Response> {
  const sent: Record<string, string> = { ...headers };
  if (token !== null) sent['X-Service-Token'] = token;
  let payload: string | Buffer | undefined = rawBody;
  if (body !== undefined) {
    payload = JSON.stringify(body);
    sent['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: sent,
    ...(payload !== undefined && { body: payload }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, body: text, json };
}
