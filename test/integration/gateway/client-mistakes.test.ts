// A client's mistake is a 4xx with its own code, logged at info, never a 500 or an error line:
// an operationName that names no operation, several operations and no operationName, a JSON input
// nested thousands of levels deep, text that is not Unicode as sent, and a body over the limit
// (whose 413 the client must be able to read). Nothing reaches the upstream for any of them.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_ADMIN_KEY, postGraphQL, startStack, type Stack } from '../../helpers/gateway.ts';

let stack: Stack;
const headers = { 'x-service-token': DEMO_ADMIN_KEY };

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});
beforeEach(() => {
  stack.proxy.reset();
  stack.logs.length = 0;
});

/** No line of the gateway's log at warn or above, and no upstream call. */
function expectQuietRefusal(): void {
  const loud = stack.logs.filter((line) => ['warn', 'error', 'fatal'].includes((JSON.parse(line) as { level: string }).level));
  expect(loud).toEqual([]);
  expect(stack.proxy.calls).toEqual([]);
}

const TWO_OPERATIONS = 'query A { protectionDevices(first: 1) { totalCount } } query B { securityFrameworks(organizationId: "1") { totalCount } }';
const CREATE = (details: string) =>
  `mutation${details === '$d' ? '($d: JSONObject)' : ''} { createSecurityFramework(organizationId: "1", input: { title: "t", controls: [{ controlId: "c", type: "t", title: "t", weight: 1, frequency: "0 * * * *", evidenceType: "e", details: ${details} }] }) { id } }`;

describe('which operation to run', () => {
  it('several operations and no operationName: 400 OPERATION_RESOLUTION_FAILURE naming them', async () => {
    const response = await postGraphQL(stack.gateway.url, { query: TWO_OPERATIONS }, headers);
    expect(response.status).toBe(400);
    expect(response.errors).toEqual([
      { message: 'The document holds several operations (A, B): say which to run in operationName.', extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } },
    ]);
    expectQuietRefusal();
  });

  it('an operationName that names none of them: 400 OPERATION_RESOLUTION_FAILURE', async () => {
    for (const query of [TWO_OPERATIONS, '{ __typename }']) {
      const response = await postGraphQL(stack.gateway.url, { query, operationName: 'C' }, headers);
      expect(response.status).toBe(400);
      expect(response.errors?.[0]?.extensions).toEqual({ code: 'OPERATION_RESOLUTION_FAILURE' });
      expect(response.errors?.[0]?.message).toMatch(/^The document has no operation named "C"; it holds: /);
    }
    expectQuietRefusal();
  });

  it('the named operation of several runs', async () => {
    const response = await postGraphQL<{ totalCount: number }>(stack.gateway.url, { query: TWO_OPERATIONS, operationName: 'A' }, headers);
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
  });
});

describe('JSON inputs nested too deep', () => {
  const nested = (depth: number) => '{"a":'.repeat(depth) + '{}' + '}'.repeat(depth);

  it('5,000 levels in a variable: 400 BAD_USER_INPUT before any work (was a stack overflow and a 500)', async () => {
    const body = `{"query":${JSON.stringify(CREATE('$d'))},"variables":{"d":${nested(5_000)}}}`;
    const response = await postGraphQL(stack.gateway.url, body, headers);
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(response.errors?.[0]?.message).toContain('nested at most 64 levels deep');
    expectQuietRefusal();
  });

  it('70 levels as a literal: 400 GRAPHQL_VALIDATION_FAILED; a shallow one goes through', async () => {
    const literal = (depth: number) => '{a:'.repeat(depth) + '{}' + '}'.repeat(depth);
    const deep = await postGraphQL(stack.gateway.url, { query: CREATE(literal(70)) }, headers);
    expect(deep.status).toBe(400);
    expect(deep.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(deep.errors?.[0]?.message).toContain('nested at most 64 levels deep');
    expectQuietRefusal();
    const fine = await postGraphQL<{ createSecurityFramework: { id: string } }>(stack.gateway.url, { query: CREATE(literal(10)) }, headers);
    expect(fine.errors).toBeUndefined();
    expect(fine.data?.createSecurityFramework.id).toMatch(/^\d+$/);
  });
});

describe('text that is not Unicode as sent', () => {
  it('a lone surrogate in a variable: 400 BAD_USER_INPUT naming it, nothing stored', async () => {
    const body = '{"query":"mutation($t: String!) { createSecurityFramework(organizationId: \\"1\\", input: { title: $t, controls: [] }) { id } }","variables":{"t":"x\\ud800y"}}';
    const response = await postGraphQL(stack.gateway.url, body, headers);
    expect(response.status).toBe(400);
    expect(response.errors).toEqual([
      {
        message: 'variables.t holds a lone UTF-16 surrogate, which is not valid Unicode: send the text as it is meant to be stored.',
        extensions: { code: 'BAD_USER_INPUT' },
      },
    ]);
    expectQuietRefusal();
  });

  it('a lone surrogate in a document literal: 400 GRAPHQL_PARSE_FAILED', async () => {
    const response = await postGraphQL(stack.gateway.url, { query: 'mutation { createSecurityFramework(organizationId: "1", input: { title: "x\\ud800y", controls: [] }) { id } }' }, headers);
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    expectQuietRefusal();
  });

  it('bytes that are not UTF-8: 400 BAD_REQUEST, not replaced', async () => {
    const bytes = Buffer.concat([Buffer.from('{"query":"{ __typename }","variables":{"t":"x'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]);
    const response = await fetch(stack.gateway.url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: bytes });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ errors: [{ message: 'Request body is not valid UTF-8.', extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('a surrogate pair is Unicode, and passes', async () => {
    const body = '{"query":"query($s: String) { trafficLog(deviceId: \\"1\\", first: 1, filter: { search: $s }) { totalCount } }","variables":{"s":"\\ud83d\\ude00\\ud83d\\ude00"}}';
    const response = await postGraphQL(stack.gateway.url, body, headers);
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
  });
});

describe('a body over the limit', () => {
  it('10 MB: every one of 30 fetch clients reads its 413 (the rest of the body is drained, not cut)', async () => {
    const body = 'x'.repeat(10 * 1024 * 1024);
    const outcomes: string[] = [];
    for (let i = 0; i < 30; i++) {
      const outcome = await fetch(stack.gateway.url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body }).then(
        async (response) => `${response.status} ${((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code}`,
        (error: unknown) => `failed: ${String((error as { cause?: unknown }).cause ?? error)}`,
      );
      outcomes.push(outcome);
    }
    expect(new Set(outcomes)).toEqual(new Set(['413 PAYLOAD_TOO_LARGE']));
    expectQuietRefusal();
  });
});

describe('lists longer than any valid one', () => {
  const EDIT = 'mutation($id: ID!, $input: WebProtectionRecordInput!) { updateWebProtectionRecord(id: $id, input: $input) { webProtectionRecord { id } } }';
  const services = (n: number) => Array.from({ length: n }, (_, i) => `service-${i}`);

  it('65 services in variables: 400 BAD_USER_INPUT naming the input, nothing forwarded', async () => {
    const response = await postGraphQL(stack.gateway.url, { query: EDIT, variables: { id: '1', input: { services: services(65) } } }, headers);
    expect(response.status).toBe(400);
    expect(response.errors).toEqual([
      {
        message: 'WebProtectionRecordInput.services holds 65 items; at most 64 are allowed.',
        extensions: { code: 'BAD_USER_INPUT', field: 'WebProtectionRecordInput.services' },
      },
    ]);
    expectQuietRefusal();
  });

  it('200,000 services (most of a megabyte) are refused the same way', async () => {
    const response = await postGraphQL(stack.gateway.url, { query: EDIT, variables: { id: '1', input: { services: Array(200_000).fill('w') } } }, headers);
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expectQuietRefusal();
  });

  it('65 actions written in the document: 400 BAD_USER_INPUT', async () => {
    const actions = JSON.stringify(services(65));
    const response = await postGraphQL(stack.gateway.url, { query: `{ trafficLog(deviceId: "1", filter: { actions: ${actions} }) { totalCount } }` }, headers);
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.message).toBe('TrafficLogFilter.actions holds 65 items; at most 64 are allowed.');
    expectQuietRefusal();
  });

  it('501 controls: refused; a list at its limit goes on', async () => {
    const control = (i: number) => ({ controlId: `c${i}`, type: 't', title: 't', weight: 1, frequency: '0 * * * *', evidenceType: 'e' });
    const create = 'mutation($input: SecurityFrameworkInput!) { createSecurityFramework(organizationId: "1", input: $input) { id } }';
    const refused = await postGraphQL(stack.gateway.url, { query: create, variables: { input: { title: 'long', controls: Array.from({ length: 501 }, (_, i) => control(i)) } } }, headers);
    expect(refused.status).toBe(400);
    expect(refused.errors?.[0]?.extensions?.field).toBe('SecurityFrameworkInput.controls');
    expectQuietRefusal();
    const within = await postGraphQL(stack.gateway.url, { query: EDIT, variables: { id: '1', input: { services: ['waf'] } } }, headers);
    expect(within.status).toBe(200);
  });
});

describe('requests the gateway does not take, each with a code and what to do', () => {
  it('an automatic persisted query whose hash is not its text: 400 PERSISTED_QUERY_HASH_MISMATCH, logged at info', async () => {
    const response = await postGraphQL(stack.gateway.url, { query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }, headers);
    expect(response.status).toBe(400);
    expect(response.errors).toEqual([
      {
        message: 'extensions.persistedQuery.sha256Hash is not the SHA-256 of the query sent with it: hash the exact query text, in lowercase hex.',
        extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH' },
      },
    ]);
    expectQuietRefusal();
  });

  it('a subscription over HTTP: 400 OPERATION_NOT_SUPPORTED', async () => {
    const response = await postGraphQL(stack.gateway.url, { query: 'subscription { trafficLogEntryAdded(deviceId: "1") { id } }' }, headers);
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.extensions).toEqual({ code: 'OPERATION_NOT_SUPPORTED' });
    expectQuietRefusal();
  });

  it('a batch while batching is off: 400 BATCHING_DISABLED naming MAX_BATCH_SIZE', async () => {
    const response = await postGraphQL(stack.gateway.url, [{ query: '{ __typename }' }, { query: '{ __typename }' }], headers);
    expect(response.status).toBe(400);
    expect(response.errors).toEqual([
      { message: 'Batched requests are off: send one operation per request, or turn batching on with MAX_BATCH_SIZE.', extensions: { code: 'BATCHING_DISABLED' } },
    ]);
    expect(stack.logs.some((line) => line.includes('"errors":["BATCHING_DISABLED"]') && line.includes('"level":"info"'))).toBe(true);
    expectQuietRefusal();
  });
});

describe('a list sent as a variable of its own', () => {
  it('65 actions in $actions, used as filter.actions: 400 BAD_USER_INPUT', async () => {
    const query = 'query($actions: [String!]) { trafficLog(deviceId: "1", filter: { actions: $actions }) { totalCount } }';
    const response = await postGraphQL(stack.gateway.url, { query, variables: { actions: Array(65).fill('block') } }, headers);
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.message).toBe('TrafficLogFilter.actions holds 65 items; at most 64 are allowed.');
    expectQuietRefusal();
    const fine = await postGraphQL(stack.gateway.url, { query, variables: { actions: ['block'] } }, headers);
    expect(fine.status).toBe(200);
  });
});

describe('a filter too long for the upstream URL', () => {
  it('64 long actions make a URL v1 refuses (431): the field is BAD_USER_INPUT, the client\'s to shorten', async () => {
    const actions = Array.from({ length: 64 }, (_, i) => `${'a'.repeat(400)}${i}`);
    const query = 'query($actions: [String!]) { trafficLog(deviceId: "1", filter: { actions: $actions }) { totalCount } }';
    const response = await postGraphQL<{ trafficLog: null }>(stack.gateway.url, { query, variables: { actions } }, headers);
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ trafficLog: null });
    expect(response.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(response.errors?.[0]?.extensions?.upstream?.status).toBe(431);
  });
});
