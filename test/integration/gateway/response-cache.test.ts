// The response cache, over HTTP against the reference service, with upstream calls counted where
// they land (the counting proxy): hits and misses, never across keys, invalidation by each
// framework mutation for every key of the organization, and stale answers while the upstream
// fails, listed in `extensions.stale`, while authorization failures are never papered over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { postGraphQL, startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';
import * as oracle from '../../helpers/oracle.ts';
import type { V1Control, V1Framework } from '../../helpers/oracle.ts';
import { v1Request } from '../../helpers/v1.ts';

interface Answer {
  status: number;
  text: string;
  body: { data?: Record<string, unknown> | null; errors?: { message: string; path?: unknown[]; extensions?: Record<string, unknown> }[]; extensions?: Record<string, unknown> };
}

async function send(stack: Stack, query: string, key: string = TEST_KEYS.admin, variables: Record<string, unknown> = {}): Promise<Answer> {
  const response = await postGraphQL<Record<string, unknown>>(stack.gateway.url, { query, variables }, { 'x-service-token': key });
  return { status: response.status, text: response.text, body: JSON.parse(response.text) };
}

const gets = (stack: Stack) => stack.proxy.calls.filter((call) => call.method === 'GET').map((call) => call.url);

const DEVICES = '{ protectionDevices(first: 3) { totalCount nodes { id deviceId } } }';
// Another shape over the same upstream page.
const DEVICE_IDS = '{ protectionDevices(first: 3) { nodes { id } } }';
const FRAMEWORKS = 'query ($org: ID!) { securityFrameworks(organizationId: $org) { nodes { id title } } }';
const RENAME = `mutation ($org: ID!, $id: ID!, $input: SecurityFrameworkInput!) {
  updateSecurityFramework(organizationId: $org, id: $id, input: $input) { securityFramework { id title } }
}`;

async function metric(stack: Stack, event: string): Promise<number> {
  const text = await (await fetch(`${stack.gateway.url.replace(/\/graphql$/, '')}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`response_cache_events_total{event="${event}"}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

describe('the response cache off (the default)', () => {
  it('sends every read upstream and says nothing of staleness', async () => {
    const stack = await startStack({ key: TEST_KEYS.admin });
    try {
      await send(stack, DEVICES);
      const again = await send(stack, DEVICES);
      expect(gets(stack)).toHaveLength(2);
      expect(again.body.extensions).not.toHaveProperty('stale');
      expect(await metric(stack, 'hit')).toBe(0);
    } finally {
      await stack.close();
    }
  });
});

describe('RESPONSE_CACHE_TTL_S=60', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ gateway: { responseCache: parseGatewayConfig({ RESPONSE_CACHE_TTL_S: '60' }).responseCache }, key: TEST_KEYS.admin });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('answers a repeated read, in any shape that needs the same upstream page, without a call', async () => {
    stack.proxy.reset();
    const first = await send(stack, DEVICES);
    expect(first.body.errors).toBeUndefined();
    expect(first.body.extensions?.cost).toMatchObject({ upstreamCalls: 1 });
    const second = await send(stack, DEVICES);
    expect(second.body.data).toEqual(first.body.data);
    expect(second.body.extensions?.cost).toMatchObject({ upstreamCalls: 0 });
    const other = await send(stack, DEVICE_IDS);
    expect(other.body.data).toEqual({ protectionDevices: { nodes: (first.body.data!.protectionDevices as { nodes: { id: string }[] }).nodes.map(({ id }) => ({ id })) } });
    expect(gets(stack)).toHaveLength(1);
    expect(await metric(stack, 'hit')).toBeGreaterThanOrEqual(2);
  });

  it('never shares an answer across keys', async () => {
    stack.proxy.reset();
    await send(stack, FRAMEWORKS, TEST_KEYS.admin, { org: '1' });
    await send(stack, FRAMEWORKS, TEST_KEYS.org1, { org: '1' });
    await send(stack, FRAMEWORKS, TEST_KEYS.org1, { org: '1' });
    // The admin's and the organization key's each once; the organization key's second is a hit.
    expect(gets(stack)).toHaveLength(2);
    // A key that may not read organization 1 is refused by v1 itself, not served the others' answer.
    const refused = await send(stack, FRAMEWORKS, TEST_KEYS.org2, { org: '1' });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(gets(stack)).toHaveLength(3);
  });

  it('invalidates an organization’s frameworks for every key when one is edited through the gateway', async () => {
    const before = await send(stack, FRAMEWORKS, TEST_KEYS.org1, { org: '1' });
    await send(stack, FRAMEWORKS, TEST_KEYS.admin, { org: '1' });
    await send(stack, FRAMEWORKS, TEST_KEYS.admin, { org: '2' });
    const target = (before.body.data!.securityFrameworks as { nodes: { id: string; title: string }[] }).nodes[0]!;
    stack.proxy.reset();

    // The edit, by the admin key, with the framework's controls as they are.
    const listed = await v1Request(stack.v1, 'GET', '/api/v1/organizations/1/security-frameworks');
    const wire = (listed.json.data as V1Framework[]).find((framework) => String(framework.id) === target.id)!;
    const controls = wire.security_frameworks.map((control) => oracle.controlFields(control as V1Control));
    const edit = await send(stack, RENAME, TEST_KEYS.admin, { org: '1', id: target.id, input: { title: 'Renamed through the gateway', controls } });
    expect(edit.body.errors).toBeUndefined();

    // Organization 1's list: read again, by each key, and seen changed; organization 2's is kept.
    const after = await send(stack, FRAMEWORKS, TEST_KEYS.org1, { org: '1' });
    expect((after.body.data!.securityFrameworks as { nodes: { id: string; title: string }[] }).nodes.find((f) => f.id === target.id)?.title).toBe('Renamed through the gateway');
    await send(stack, FRAMEWORKS, TEST_KEYS.admin, { org: '1' });
    await send(stack, FRAMEWORKS, TEST_KEYS.admin, { org: '2' });
    expect(gets(stack).map((url) => url.replace(/\?.*/, ''))).toEqual([
      '/api/v1/organizations/1/security-frameworks',
      '/api/v1/organizations/1/security-frameworks',
    ]);
  });
});

describe('invalidation by each framework mutation', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ gateway: { responseCache: parseGatewayConfig({ RESPONSE_CACHE_TTL_S: '60' }).responseCache }, key: TEST_KEYS.admin });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const CREATE = `mutation ($org: ID, $input: SecurityFrameworkInput!) {
    createSecurityFramework(organizationId: $org, input: $input) { id }
  }`;
  const DELETE = 'mutation ($org: ID!, $id: ID!) { deleteSecurityFramework(organizationId: $org, id: $id) { securityFramework { id } } }';
  const control = { controlId: 'C-1', type: 'control', title: 'A control', weight: 1, details: {}, frequency: '0 9 * * 1', description: '', evidenceType: 'document' };
  const titles = (answer: Answer) => (answer.body.data!.securityFrameworks as { nodes: { id: string; title: string }[] }).nodes;

  it('a create by an organization key (its organization unknown to the gateway) invalidates every organization’s list', async () => {
    await send(stack, FRAMEWORKS, TEST_KEYS.org1, { org: '1' });
    await send(stack, FRAMEWORKS, TEST_KEYS.admin, { org: '2' });
    stack.proxy.reset();
    const created = await send(stack, CREATE, TEST_KEYS.org1, { input: { title: 'Created by an organization key', controls: [control] } });
    expect(created.body.errors).toBeUndefined();
    const after = await send(stack, FRAMEWORKS, TEST_KEYS.org1, { org: '1' });
    expect(titles(after).map((f) => f.title)).toContain('Created by an organization key');
    await send(stack, FRAMEWORKS, TEST_KEYS.admin, { org: '2' });
    expect(gets(stack)).toHaveLength(2);
  });

  it('a delete invalidates its organization’s list, and a failed one invalidates too (it may have landed)', async () => {
    const before = titles(await send(stack, FRAMEWORKS, TEST_KEYS.org1, { org: '1' }));
    const victim = before.find((f) => f.title === 'Created by an organization key')!;
    const deleted = await send(stack, DELETE, TEST_KEYS.admin, { org: '1', id: victim.id });
    expect(deleted.body.errors).toBeUndefined();
    expect(titles(await send(stack, FRAMEWORKS, TEST_KEYS.org1, { org: '1' })).map((f) => f.id)).not.toContain(victim.id);

    // A delete the upstream answers 503 to: the list is read again rather than trusted.
    await send(stack, FRAMEWORKS, TEST_KEYS.org1, { org: '1' });
    stack.proxy.reset();
    stack.proxy.fail((call) => (call.method === 'DELETE' ? 503 : undefined));
    const failed = await send(stack, DELETE, TEST_KEYS.admin, { org: '1', id: before[0]!.id });
    expect(failed.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    stack.proxy.fail(() => undefined);
    await send(stack, FRAMEWORKS, TEST_KEYS.org1, { org: '1' });
    expect(gets(stack)).toEqual(['/api/v1/organizations/1/security-frameworks']);
  });

  it('never keeps a mutation’s answer', async () => {
    stack.proxy.reset();
    const UPDATE = 'mutation ($id: ID!) { updateWebProtectionRecord(id: $id, input: { fqdn: "cached.acmehealth.example" }) { webProtectionRecord { id } } }';
    const first = await send(stack, UPDATE, TEST_KEYS.admin, { id: '1' });
    const second = await send(stack, UPDATE, TEST_KEYS.admin, { id: '1' });
    expect(first.body.errors).toBeUndefined();
    expect(second.body.data).toEqual(first.body.data);
    expect(stack.proxy.calls.filter((call) => call.method === 'PUT')).toHaveLength(2);
  });
});

describe('STALE_IF_ERROR_S=60 with RESPONSE_CACHE_TTL_S=1', () => {
  let stack: Stack;
  const NESTED = '{ protectionDevices(first: 2) { nodes { id traffic(first: 2) { nodes { id } } } } }';
  beforeAll(async () => {
    const config = parseGatewayConfig({ RESPONSE_CACHE_TTL_S: '1', STALE_IF_ERROR_S: '60', UPSTREAM_CIRCUIT_FAILURES: '3', UPSTREAM_CIRCUIT_COOLDOWN_MS: '300' });
    stack = await startStack({
      gateway: { responseCache: config.responseCache, upstreamCircuitFailures: config.upstreamCircuitFailures, upstreamCircuitCooldownMs: config.upstreamCircuitCooldownMs, upstreamRetries: 0 },
      key: TEST_KEYS.admin,
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('serves what it kept while the upstream is down, through an open circuit, and lists the fields served stale with their age', async () => {
    const fresh = await send(stack, NESTED);
    expect(fresh.body.errors).toBeUndefined();
    const framework = await send(stack, FRAMEWORKS, TEST_KEYS.admin, { org: '1' });
    await new Promise((resolve) => setTimeout(resolve, 1100));

    stack.proxy.reset();
    stack.proxy.fail(() => 503);
    for (let i = 0; i < 4; i++) {
      const stale = await send(stack, NESTED);
      expect(stale.status).toBe(200);
      expect(stale.body.errors).toBeUndefined();
      expect(stale.body.data).toEqual(fresh.body.data);
      const ids = (fresh.body.data!.protectionDevices as { nodes: { id: string }[] }).nodes.map((n) => n.id);
      expect(stale.body.extensions?.stale).toEqual([
        { path: ['protectionDevices'], age: expect.any(Number) },
        ...ids.map((_, index) => ({ path: ['protectionDevices', 'nodes', index, 'traffic'], age: expect.any(Number) })),
      ]);
      for (const field of stale.body.extensions!.stale as { age: number }[]) expect(field.age).toBeGreaterThanOrEqual(1);
    }
    // Past UPSTREAM_CIRCUIT_FAILURES the circuit opened: later reads were not even sent.
    expect(stack.proxy.calls.length).toBeLessThan(4 * 3);
    const frameworks = await send(stack, FRAMEWORKS, TEST_KEYS.admin, { org: '1' });
    expect(frameworks.body.data).toEqual(framework.body.data);
    expect(frameworks.body.extensions?.stale).toEqual([{ path: ['securityFrameworks'], age: expect.any(Number) }]);
    expect(await metric(stack, 'stale')).toBeGreaterThanOrEqual(4 * 3 + 1);
  });

  it('papers over no authorization failure, and serves nothing it never kept for this key', async () => {
    // Let the circuit close again, then answer 403 and 401 where the kept answers are.
    stack.proxy.fail(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 400));
    for (const status of [401, 403, 404]) {
      stack.proxy.fail(() => status);
      const refused = await send(stack, NESTED);
      expect(refused.body.data?.protectionDevices ?? null).toBeNull();
      expect(refused.body.errors?.[0]?.extensions?.code).toBe({ 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN', 404: 'NOT_FOUND' }[status]);
      expect(refused.body.extensions).not.toHaveProperty('stale');
    }
    // The admin's answers are its own: another key, with the upstream down, gets the failure.
    stack.proxy.fail(() => 503);
    const other = await send(stack, NESTED, TEST_KEYS.org1);
    expect(other.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(other.body.extensions).not.toHaveProperty('stale');
    stack.proxy.fail(() => undefined);
  });

  it('notes every field a stale answer reached, whichever resolver read it', async () => {
    // The circuit the previous failures opened closes first.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const frameworks = await send(stack, FRAMEWORKS, TEST_KEYS.admin, { org: '1' });
    const id = (frameworks.body.data!.securityFrameworks as { nodes: { id: string }[] }).nodes[0]!.id;
    const SINGLES = `query ($org: ID!, $id: ID!) {
      protectionDevice(id: "1") { id }
      trafficLog(deviceId: "1", first: 2) { nodes { id } }
      securityFramework(organizationId: $org, id: $id) { id }
    }`;
    const fresh = await send(stack, SINGLES, TEST_KEYS.admin, { org: '1', id });
    expect(fresh.body.errors).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    stack.proxy.fail(() => 503);
    const stale = await send(stack, SINGLES, TEST_KEYS.admin, { org: '1', id });
    stack.proxy.fail(() => undefined);
    expect(stale.body.errors).toBeUndefined();
    expect(stale.body.data).toEqual(fresh.body.data);
    const paths = (stale.body.extensions?.stale as { path: unknown[] }[]).map((field) => field.path);
    expect(paths).toHaveLength(3);
    expect(paths).toEqual(expect.arrayContaining([['protectionDevice'], ['trafficLog'], ['securityFramework']]));
  });

  it('never names a key in its log lines', () => {
    for (const line of stack.logs) for (const key of stack.keys()) expect(line).not.toContain(key);
  });
});
