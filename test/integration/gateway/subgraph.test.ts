// The gateway as a Federation 2 subgraph (SUBGRAPH=1), spoken to as a router speaks to it: the
// `_service` SDL, `_entities` for representations (with the upstream calls counted by the proxy in
// front of the v1 service, and every value checked against v1's own list), the secret that keeps
// both fields to the router, and a plain gateway whose schema stays the SDL's. Composition and a
// real router are in supergraph.test.ts.
import { readFileSync } from 'node:fs';
import { buildClientSchema, buildSchema, getIntrospectionQuery, lexicographicSortSchema, printSchema } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { DEMO_ADMIN_KEY, postGraphQL, startStack, TEST_KEYS, type GraphQLResponse, type Stack } from '../../helpers/gateway.ts';
import type { ProxiedCall } from '../../helpers/counting-proxy.ts';
import { deviceEntity, routerRequest, v1Entities, type V1Entities } from '../../helpers/federation.ts';
import type { V1Framework } from '../../helpers/oracle.ts';

const SECRET = 'router-secret-5d1c8a';
const SEED = { devices: 600, traffic: 20, hotTraffic: 0 };
const PAGE = 500;

let stack: Stack;
/** Every device and every organization's frameworks, as v1 lists them to the admin key. */
let devices: V1Entities['devices'];
let frameworks: V1Entities['frameworks'];

const subgraphOptions = { subgraph: { enabled: true, secret: SECRET }, limits: { ...parseGatewayConfig({}).limits, maxAliases: 120, maxUpstreamCalls: 1_000 } };

beforeAll(async () => {
  stack = await startStack({ v1: { seedSizes: SEED }, gateway: subgraphOptions });
  ({ devices, frameworks } = await v1Entities(stack.v1, PAGE));
  expect(devices.size).toBe(SEED.devices);
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

beforeEach(() => {
  stack.proxy.reset();
});

interface Body<T> {
  data?: T | null;
  errors?: GraphQLResponse<T>['errors'];
  extensions?: { cost?: { estimated: number | null; upstreamCalls: number } };
}

/** A request as the router sends it, by default with the admin key and the secret; nothing secret comes back. */
async function asRouter<T>(query: string, variables: Record<string, unknown> = {}, options: { key?: string | null; secret?: string | null } = {}) {
  const key = options.key === undefined ? DEMO_ADMIN_KEY : options.key;
  const secret = options.secret === undefined ? SECRET : options.secret;
  const response = await routerRequest<T>(stack.gateway.url, { query, variables }, { key, secret });
  expect(response.text).not.toContain(SECRET);
  for (const known of stack.keys()) expect(response.text).not.toContain(known);
  return { ...response, body: JSON.parse(response.text) as Body<T> };
}

const DEVICE_FIELDS = 'id deviceId type email endpoint privateIp atbKey services organization { id name logo }';
const ENTITIES = `query Entities($representations: [_Any!]!) {
  _entities(representations: $representations) {
    __typename
    ... on ProtectionDevice { ${DEVICE_FIELDS} }
    ... on SecurityFramework { organizationId id title controls { controlId } }
  }
}`;

function frameworkAsGateway(organizationId: number, framework: V1Framework) {
  return {
    __typename: 'SecurityFramework',
    organizationId: String(organizationId),
    id: String(framework.id),
    title: framework.title,
    controls: framework.security_frameworks.map((control) => ({ controlId: control.id })),
  };
}

/** Every call a page of one of the device list in id order, none twice. */
function expectDeviceSearch(calls: ProxiedCall[]): void {
  for (const call of calls) {
    expect({ method: call.method, path: call.path, query: [...call.query.entries()].sort() }).toEqual({
      method: 'GET',
      path: '/api/v1/atb',
      query: [['limit', '1'], ['offset', expect.any(String)], ['order', 'id']],
    });
  }
  expect(new Set(calls.map((call) => call.url)).size).toBe(calls.length);
}

/** Deterministic spread of ids over the list: every `step`-th device, from `from`. */
function idsAcross(count: number, from: number, step: number): number[] {
  const ids = [...devices.keys()].sort((a, b) => a - b);
  return Array.from({ length: count }, (_, i) => ids[(from + i * step) % ids.length]!);
}

describe('_service', () => {
  it("gives the router the SDL with the federation link, the entities' keys and the shared organization", async () => {
    const response = await asRouter<{ _service: { sdl: string } }>('{ _service { sdl } }');
    expect(response.status, response.text).toBe(200);
    const sdl = response.body.data!._service.sdl;
    expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key", "@shareable"])');
    expect(sdl).toMatch(/type ProtectionDevice\s+@key\(fields: "id"\)/);
    expect(sdl).toMatch(/type SecurityFramework\s+@key\(fields: "organizationId id"\)/);
    expect(sdl).toMatch(/type Organization\s+@key\(fields: "id", resolvable: false\)/);
    expect(sdl).toMatch(/name: String! @shareable/);
    // The SDL's descriptions come with it: the supergraph's explorer shows them.
    expect(sdl).toContain('The organization that owns the framework.');
  });
});

describe('_entities', () => {
  it('100 device representations, unknown ids mixed in, cost one shared search: the same calls as 100 lookups in one operation', async () => {
    const known = idsAcross(88, 3, 7);
    const unknown = ['999999', '0', 'not-an-id', '-4', '600001', '123456789', '00', '2.5', '1e3', ' 7', '99999999999999999', '5000'];
    // Unknown ones among the known ones, at fixed places.
    const ids: string[] = known.map(String);
    unknown.forEach((id, i) => ids.splice(i * 8 + 1, 0, id));
    expect(ids).toHaveLength(100);
    const representations = ids.map((id) => ({ __typename: 'ProtectionDevice', id }));

    const response = await asRouter<{ _entities: unknown[] }>(ENTITIES, { representations });
    expect(response.status, response.text).toBe(200);
    // A malformed id is BAD_USER_INPUT in its place, as in every id argument; a well-formed unknown one is null.
    const malformed = ids.flatMap((id, i) => (/^[1-9]\d{0,15}$/.test(id) ? [] : [i]));
    expect(malformed).toHaveLength(8);
    const errorsOf = (errors: GraphQLResponse<unknown>['errors']) =>
      (errors ?? []).map((error) => ({ code: error.extensions?.code, path: error.path })).sort((a, b) => JSON.stringify(a.path).localeCompare(JSON.stringify(b.path)));
    const expectedErrors = (path: (i: number) => unknown[]) =>
      malformed.map((i) => ({ code: 'BAD_USER_INPUT', path: path(i) })).sort((a, b) => JSON.stringify(a.path).localeCompare(JSON.stringify(b.path)));
    expect(errorsOf(response.body.errors)).toEqual(expectedErrors((i) => ['_entities', i]));
    const expected = ids.map((id) => {
      const device = /^[1-9]\d*$/.test(id) ? devices.get(Number(id)) : undefined;
      return device ? deviceEntity(device) : null;
    });
    expect(response.body.data!._entities).toEqual(expected);
    expect(expected.filter((entity) => entity === null)).toHaveLength(unknown.length);
    const entityCalls = stack.proxy.calls.slice();
    expectDeviceSearch(entityCalls);
    expect(response.body.extensions?.cost?.upstreamCalls).toBe(entityCalls.length);

    // The same ids as 100 lookups of one operation (aliases allowed up to 120 on this gateway).
    stack.proxy.reset();
    const lookups = `query Lookups {\n${ids.map((id, i) => `  d${i}: protectionDevice(id: ${JSON.stringify(id)}) { ${DEVICE_FIELDS} }`).join('\n')}\n}`;
    const direct = await asRouter<Record<string, unknown>>(lookups);
    expect(errorsOf(direct.body.errors)).toEqual(expectedErrors((i) => [`d${i}`]));
    expect(ids.map((_, i) => direct.body.data![`d${i}`])).toEqual(expected.map((entity) => (entity === null ? null : { ...entity, __typename: undefined })).map((entity) => entity && Object.fromEntries(Object.entries(entity).filter(([k]) => k !== '__typename'))));
    expect(stack.proxy.calls.map((call) => call.url).sort()).toEqual(entityCalls.map((call) => call.url).sort());
    console.log(`upstream calls: 100 device representations (88 known among ${SEED.devices}, 4 unknown, 8 malformed): ${entityCalls.length}`);
  });

  it('frameworks cost one list call per organization, whatever the number of representations', async () => {
    const representations: { __typename: string; organizationId: string; id: string }[] = [];
    const expected: unknown[] = [];
    for (const [organization, list] of frameworks) {
      for (const framework of list) {
        representations.push({ __typename: 'SecurityFramework', organizationId: String(organization), id: String(framework.id) });
        expected.push(frameworkAsGateway(organization, framework));
      }
      // An id that organization does not hold.
      representations.push({ __typename: 'SecurityFramework', organizationId: String(organization), id: '987654' });
      expected.push(null);
    }
    // An organization that does not exist, and an organization id that cannot be one.
    representations.push({ __typename: 'SecurityFramework', organizationId: '424242', id: '1' }, { __typename: 'SecurityFramework', organizationId: 'x', id: '1' });
    expected.push(null, null);
    expect(expected.filter(Boolean).length).toBeGreaterThan(3);

    const response = await asRouter<{ _entities: unknown[] }>(ENTITIES, { representations });
    expect(response.body.errors, response.text).toBeUndefined();
    expect(response.body.data!._entities).toEqual(expected);
    const lists = stack.proxy.calls.map((call) => `${call.method} ${call.path}`).sort();
    expect(lists).toEqual([...[...frameworks.keys()].map((organization) => `GET /api/v1/organizations/${organization}/security-frameworks`), 'GET /api/v1/organizations/424242/security-frameworks'].sort());
    console.log(`upstream calls: ${representations.length} framework representations over ${frameworks.size + 1} organizations: ${stack.proxy.calls.length}`);
  });

  it("an organization's key finds its own devices and frameworks; another organization's are null, without an error", async () => {
    const own = [...devices.values()].filter((device) => device.organization.id === 1).slice(0, 3);
    const other = [...devices.values()].filter((device) => device.organization.id === 2).slice(0, 3);
    expect(own).toHaveLength(3);
    expect(other).toHaveLength(3);
    const ownFramework = frameworks.get(1)![0]!;
    const otherFramework = frameworks.get(2)![0]!;
    const representations = [
      ...[own[0]!, other[0]!, own[1]!, other[1]!, other[2]!, own[2]!].map((device) => ({ __typename: 'ProtectionDevice', id: String(device.id) })),
      { __typename: 'SecurityFramework', organizationId: '1', id: String(ownFramework.id) },
      { __typename: 'SecurityFramework', organizationId: '2', id: String(otherFramework.id) },
      // Another organization's framework named under the key's own organization.
      { __typename: 'SecurityFramework', organizationId: '1', id: String(otherFramework.id) },
    ];
    const response = await asRouter<{ _entities: unknown[] }>(ENTITIES, { representations }, { key: TEST_KEYS.org1 });
    expect(response.body.errors, response.text).toBeUndefined();
    expect(response.body.data!._entities).toEqual([
      deviceEntity(own[0]!),
      null,
      deviceEntity(own[1]!),
      null,
      null,
      deviceEntity(own[2]!),
      frameworkAsGateway(1, ownFramework),
      null,
      null,
    ]);
  });

  it('a failed upstream call nulls its own entities, with their errors beside the others', async () => {
    const list = frameworks.get(1)!;
    const device = [...devices.values()][10]!;
    stack.proxy.fail((call) => (call.path === '/api/v1/organizations/2/security-frameworks' ? 503 : undefined));
    const representations = [
      { __typename: 'SecurityFramework', organizationId: '2', id: '1' },
      { __typename: 'SecurityFramework', organizationId: '1', id: String(list[0]!.id) },
      { __typename: 'ProtectionDevice', id: String(device.id) },
      { __typename: 'SecurityFramework', organizationId: '2', id: '2' },
      // A representation without its key: an error in its place alone.
      { __typename: 'ProtectionDevice' },
    ];
    const response = await asRouter<{ _entities: unknown[] }>(ENTITIES, { representations });
    expect(response.status).toBe(200);
    expect(response.body.data!._entities).toEqual([null, frameworkAsGateway(1, list[0]!), deviceEntity(device), null, null]);
    expect(response.body.errors?.map((error) => ({ code: error.extensions?.code, path: error.path })).sort((a, b) => String(a.path).localeCompare(String(b.path)))).toEqual([
      { code: 'UPSTREAM_UNAVAILABLE', path: ['_entities', 0] },
      { code: 'UPSTREAM_UNAVAILABLE', path: ['_entities', 3] },
      { code: 'BAD_USER_INPUT', path: ['_entities', 4] },
    ]);
    expect(response.text).not.toContain(stack.proxy.url);
  });

  it('a representation of a type this subgraph cannot resolve is a BAD_USER_INPUT in its own place', async () => {
    const device = [...devices.values()][0]!;
    const representations = [
      { __typename: 'Organization', id: '1' },
      { __typename: 'ProtectionDevice', id: String(device.id) },
      { __typename: 'Asset', serial: 'A-1' },
      'not an object',
      { id: '1' },
    ];
    const response = await asRouter<{ _entities: unknown[] }>(ENTITIES, { representations });
    expect(response.status).toBe(200);
    expect(response.body.data!._entities, response.text).toEqual([null, deviceEntity(device), null, null, null]);
    expect(response.body.errors?.map((error) => ({ code: error.extensions?.code, path: error.path }))).toEqual(
      [0, 2, 3, 4].map((index) => ({ code: 'BAD_USER_INPUT', path: ['_entities', index] })),
    );
    expect(stack.logs.filter((line) => line.includes('internal error'))).toEqual([]);
  });

  it('without a key, the request is refused with 401 before any upstream call', async () => {
    const response = await asRouter<{ _entities: unknown[] }>(ENTITIES, { representations: [{ __typename: 'ProtectionDevice', id: '1' }] }, { key: null });
    expect(response.status).toBe(401);
    expect(response.body.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    expect(stack.proxy.calls).toHaveLength(0);
  });

  it("is counted by the cost limit once per representation, as a connection's items are", async () => {
    const one = await asRouter<{ _entities: unknown[] }>(ENTITIES, { representations: [{ __typename: 'ProtectionDevice', id: '1' }] });
    const ten = await asRouter<{ _entities: unknown[] }>(ENTITIES, { representations: Array.from({ length: 10 }, (_, i) => ({ __typename: 'ProtectionDevice', id: String(i + 1) })) });
    const perItem = one.body.extensions!.cost!.estimated! - 1;
    expect(perItem).toBeGreaterThan(5);
    expect(ten.body.extensions!.cost!.estimated).toBe(1 + 10 * perItem);
  });
});

describe('throttling (RATE_LIMIT_CALLS=40)', () => {
  let throttled: Stack;
  beforeAll(async () => {
    const config = parseGatewayConfig({ SUBGRAPH: '1', RATE_LIMIT_CALLS: '40', RATE_LIMIT_RESTORE_PER_S: '1' });
    throttled = await startStack({ v1: { seedSizes: SEED }, gateway: { subgraph: config.subgraph, rateLimit: config.rateLimit } });
  }, 60_000);
  afterAll(async () => {
    await throttled?.close();
  });

  it("charges _entities to the key's bucket like any operation: reserved per representation, settled to the calls made", async () => {
    const representations = Array.from({ length: 12 }, (_, i) => ({ __typename: 'ProtectionDevice', id: String(i * 3 + 1) }));
    const send = () => postGraphQL<{ _entities: unknown[] }>(throttled.gateway.url, { query: ENTITIES, variables: { representations } }, { 'x-service-token': DEMO_ADMIN_KEY });
    const first = await send();
    expect(first.errors, first.text).toBeUndefined();
    const cost = JSON.parse(first.text).extensions.cost as { upstreamCalls: number; throttle: { remaining: number } };
    expect(cost.upstreamCalls).toBe(throttled.proxy.calls.length);
    // Settled to the calls made (the bucket restores a call a second meanwhile).
    expect(cost.throttle.remaining).toBeGreaterThanOrEqual(40 - cost.upstreamCalls);
    expect(cost.throttle.remaining).toBeLessThan(40 - cost.upstreamCalls + 5);
    // 12 representations are estimated at 3 calls each (36): more than what is left, refused before any call.
    throttled.proxy.reset();
    const second = await send();
    expect(second.status, second.text).toBe(429);
    expect(second.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(throttled.proxy.calls).toHaveLength(0);
  });
});

describe('MAX_UPSTREAM_CALLS=20', () => {
  let bounded: Stack;
  beforeAll(async () => {
    const config = parseGatewayConfig({ SUBGRAPH: '1', MAX_UPSTREAM_CALLS: '20' });
    bounded = await startStack({ v1: { seedSizes: SEED }, gateway: { subgraph: config.subgraph, limits: config.limits } });
  }, 60_000);
  afterAll(async () => {
    await bounded?.close();
  });

  it('bounds a batch: the entities past the budget fail UPSTREAM_BUDGET_EXCEEDED in their places, the others are answered', async () => {
    const ids = idsAcross(30, 0, 17).map(String);
    const response = await postGraphQL<{ _entities: unknown[] }>(
      bounded.gateway.url,
      { query: ENTITIES, variables: { representations: ids.map((id) => ({ __typename: 'ProtectionDevice', id })) } },
      { 'x-service-token': DEMO_ADMIN_KEY },
    );
    expect(response.status).toBe(200);
    const entities = response.data!._entities;
    expect(entities).toHaveLength(30);
    expect(bounded.proxy.calls.length).toBeLessThanOrEqual(20);
    const failed = new Set(response.errors!.map((error) => error.path![1] as number));
    expect(response.errors!.every((error) => error.extensions?.code === 'UPSTREAM_BUDGET_EXCEEDED')).toBe(true);
    expect(failed.size).toBeGreaterThan(0);
    ids.forEach((id, i) => expect(entities[i]).toEqual(failed.has(i) ? null : deviceEntity(devices.get(Number(id))!)));
  });
});

describe('with the response cache (RESPONSE_CACHE_TTL_S=60, STALE_IF_ERROR_S=60)', () => {
  let cached: Stack;
  beforeAll(async () => {
    const config = parseGatewayConfig({ SUBGRAPH: '1', RESPONSE_CACHE_TTL_S: '60', STALE_IF_ERROR_S: '60' });
    cached = await startStack({ v1: { seedSizes: SEED }, gateway: { subgraph: config.subgraph, responseCache: config.responseCache } });
  }, 60_000);
  afterAll(async () => {
    await cached?.close();
  });

  it('answers a repeated batch of representations from the cache, per key', async () => {
    const representations = [
      { __typename: 'ProtectionDevice', id: '5' },
      { __typename: 'SecurityFramework', organizationId: '1', id: String(frameworks.get(1)![0]!.id) },
    ];
    const send = (key: string) => postGraphQL<{ _entities: unknown[] }>(cached.gateway.url, { query: ENTITIES, variables: { representations } }, { 'x-service-token': key });
    const first = await send(DEMO_ADMIN_KEY);
    expect(first.errors, first.text).toBeUndefined();
    expect(cached.proxy.calls.length).toBeGreaterThan(0);
    cached.proxy.reset();
    const again = await send(DEMO_ADMIN_KEY);
    expect(again.data).toEqual(first.data);
    expect(cached.proxy.calls).toHaveLength(0);
    // Another key is never answered from the first one's cache.
    const other = await send(TEST_KEYS.org1);
    expect(other.errors, other.text).toBeUndefined();
    expect(cached.proxy.calls.length).toBeGreaterThan(0);
  });
});

describe('the subgraph secret', () => {
  const probes: [string, string][] = [
    ['_service', '{ _service { sdl } }'],
    ['_entities', `{ _entities(representations: [{ __typename: "ProtectionDevice", id: "1" }]) { ... on ProtectionDevice { id } } }`],
    ['_entities through a fragment', `query { ...Router } fragment Router on Query { _entities(representations: [{ __typename: "ProtectionDevice", id: "1" }]) { __typename } }`],
  ];
  for (const [what, query] of probes) {
    it(`refuses ${what} with 403 without the secret or with a wrong one, before any upstream call`, async () => {
      for (const secret of [null, 'wrong', `${SECRET}x`, '']) {
        const response = await asRouter(query, {}, { secret });
        expect(response.status, response.text).toBe(403);
        expect(response.body.data).toBeUndefined();
        expect(response.body.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
      }
      expect(stack.proxy.calls).toHaveLength(0);
    });
  }

  it('is not asked of ordinary operations', async () => {
    const response = await asRouter<{ protectionDevices: { totalCount: number } }>('{ protectionDevices(first: 1) { totalCount } }', {}, { secret: null });
    expect(response.status).toBe(200);
    expect(response.body.data!.protectionDevices.totalCount).toBe(SEED.devices);
  });
});

describe('in production', () => {
  let production: Stack;
  beforeAll(async () => {
    production = await startStack({ gateway: { ...parseGatewayConfig({ NODE_ENV: 'production', SUBGRAPH: '1', SUBGRAPH_SECRET: SECRET }), port: 0 } });
  }, 60_000);
  afterAll(async () => {
    await production?.close();
  });

  it('still hides introspection, while the router reads _service', async () => {
    const headers = { 'x-service-token': DEMO_ADMIN_KEY, 'x-subgraph-secret': SECRET };
    const introspection = await postGraphQL(production.gateway.url, { query: getIntrospectionQuery() }, headers);
    expect(introspection.status).toBe(400);
    expect(introspection.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const service = await postGraphQL<{ _service: { sdl: string } }>(production.gateway.url, { query: '{ _service { sdl } }' }, headers);
    expect(service.status, service.text).toBe(200);
    expect(service.data?._service.sdl).toContain('@key(fields: "id")');
  });
});

describe('without SUBGRAPH=1', () => {
  let plain: Stack;
  beforeAll(async () => {
    plain = await startStack();
  }, 60_000);
  afterAll(async () => {
    await plain?.close();
  });

  it('serves exactly the printed schema file, SecurityFramework.organizationId included, and no federation field', async () => {
    const introspection = getIntrospectionQuery({ descriptions: true, schemaDescription: true, specifiedByUrl: true, directiveIsRepeatable: true, inputValueDeprecation: true });
    const response = await postGraphQL<any>(plain.gateway.url, { query: introspection }, { 'x-service-token': DEMO_ADMIN_KEY });
    expect(response.status).toBe(200);
    const served = printSchema(lexicographicSortSchema(buildClientSchema(response.data)));
    const file = printSchema(lexicographicSortSchema(buildSchema(readFileSync(new URL('../../../src/gateway/generated/schema.graphql', import.meta.url), 'utf8'))));
    expect(served).toBe(file);
    expect(served).toContain('organizationId: ID!');
    expect(served).not.toMatch(/_service|_entities|_Any|@key|link__/);
    const refused = await postGraphQL(plain.gateway.url, { query: '{ _service { sdl } }' }, { 'x-service-token': DEMO_ADMIN_KEY });
    expect(refused.status).toBe(400);
    expect(refused.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('answers SecurityFramework.organizationId in the payloads of create, update and delete', async () => {
    const headers = { 'x-service-token': DEMO_ADMIN_KEY };
    const input = {
      title: 'Subgraph key check',
      controls: [{ controlId: 'K-1', type: 'technical', title: 'Keys', weight: 1, frequency: '0 9 1 1 *', evidenceType: 'document' }],
    };
    const created = await postGraphQL<any>(
      plain.gateway.url,
      { query: 'mutation ($input: SecurityFrameworkInput!) { createSecurityFramework(input: $input, organizationId: "3") { id securityFramework { organizationId id } } }', variables: { input } },
      headers,
    );
    expect(created.errors, created.text).toBeUndefined();
    const id = created.data.createSecurityFramework.id as string;
    expect(created.data.createSecurityFramework.securityFramework).toEqual({ organizationId: '3', id });
    const updated = await postGraphQL<any>(
      plain.gateway.url,
      { query: 'mutation ($id: ID!, $input: SecurityFrameworkInput!) { updateSecurityFramework(organizationId: "3", id: $id, input: $input) { securityFramework { organizationId id title } } }', variables: { id, input: { ...input, title: 'Renamed' } } },
      headers,
    );
    expect(updated.errors, updated.text).toBeUndefined();
    expect(updated.data.updateSecurityFramework.securityFramework).toEqual({ organizationId: '3', id, title: 'Renamed' });
    const deleted = await postGraphQL<any>(plain.gateway.url, { query: 'mutation ($id: ID!) { deleteSecurityFramework(organizationId: "3", id: $id) { securityFramework { organizationId id } } }', variables: { id } }, headers);
    expect(deleted.errors, deleted.text).toBeUndefined();
    expect(deleted.data.deleteSecurityFramework.securityFramework).toEqual({ organizationId: '3', id });
  });

  it('answers SecurityFramework.organizationId from the organization the framework was read under', async () => {
    const response = await postGraphQL<any>(plain.gateway.url, { query: '{ securityFrameworks(organizationId: "2") { nodes { organizationId id } } }' }, { 'x-service-token': DEMO_ADMIN_KEY });
    expect(response.errors).toBeUndefined();
    const nodes = response.data.securityFrameworks.nodes as { organizationId: string; id: string }[];
    expect(nodes.length).toBeGreaterThan(0);
    for (const node of nodes) expect(node.organizationId).toBe('2');
  });
});
