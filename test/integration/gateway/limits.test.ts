// The gateway's defences against oversized operations, spoken to over HTTP: every limit answers
// 400 with a stable code and nothing reaches the upstream (a counting proxy stands in front of
// the v1 service); the call budget fails only the fields past it.
import { getIntrospectionQuery, GraphQLError, parse, type OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseGatewayConfig } from '../../../src/gateway/config.ts';
import { CallBudget, DEFAULT_LIMITS, estimateCost } from '../../../src/gateway/limits/index.ts';
import { buildSchema } from '../../../src/gateway/domains/index.ts';
import { postGraphQL, startStack, TEST_KEYS, type GraphQLResponse, type Stack } from '../../helpers/gateway.ts';

const KEY = TEST_KEYS.admin;

async function send(stack: Stack, body: unknown): Promise<GraphQLResponse<any> & { upstreamCalls: number }> {
  stack.proxy.reset();
  const response = await postGraphQL<any>(stack.gateway.url, body, { 'x-service-token': KEY });
  return { ...response, upstreamCalls: stack.proxy.calls.length };
}

/** `{ __type(name: "Query") { fields { type { ofType { … } } } } }`, `levels` fields deep. */
function nestedTypeQuery(levels: number): string {
  let selection = 'name';
  for (let i = 0; i < levels - 4; i++) selection = `ofType { ${selection} }`;
  return `__type(name: "Query") { fields { type { ${selection} } } }`;
}

const DEVICES_WITH_TRAFFIC = /* GraphQL */ `
  query DevicesWithTraffic($devices: Int, $traffic: Int) {
    protectionDevices(first: $devices) { nodes { id traffic(first: $traffic) { nodes { id } } } }
  }
`;

describe('query limits (default settings)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ v1: { seed: 'none' }, key: KEY });
  });
  afterAll(() => stack?.close());

  it('lets an operation within every limit reach the upstream (the proxy counts it)', async () => {
    const response = await send(stack, { query: '{ securityFrameworks(organizationId: 1) { totalCount } }' });
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
    expect(response.upstreamCalls).toBe(1);
  });

  it('refuses an operation nested deeper than 12 fields', async () => {
    const response = await send(stack, {
      query: `{ securityFrameworks(organizationId: 1) { totalCount } ${nestedTypeQuery(13)} }`,
    });
    expect(response.status).toBe(400);
    expect(response.data).toBeUndefined();
    expect(response.errors?.[0]).toMatchObject({
      message: 'The operation has 13 levels of nested fields; the limit is 12.',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED', reason: 'QUERY_TOO_DEEP', limit: 12, found: 13 },
    });
    expect(response.upstreamCalls).toBe(0);

    const atTheLimit = await send(stack, { query: `{ ${nestedTypeQuery(12)} }` });
    expect(atTheLimit.status).toBe(200);
    expect(atTheLimit.errors).toBeUndefined();
  });

  it('refuses more than 30 aliases', async () => {
    const fields = Array.from({ length: 31 }, (_, i) => `f${i}: securityFrameworks(organizationId: 1) { totalCount }`);
    const response = await send(stack, { query: `{ ${fields.join(' ')} }` });
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', reason: 'TOO_MANY_ALIASES', limit: 30, found: 31 });
    expect(response.upstreamCalls).toBe(0);
  });

  it('refuses more than 50 directives', async () => {
    const fields = Array.from({ length: 51 }, () => 'totalCount @include(if: true)');
    const response = await send(stack, { query: `{ securityFrameworks(organizationId: 1) { ${fields.join(' ')} } }` });
    expect(response.status).toBe(400);
    expect(response.errors).toHaveLength(1);
    expect(response.errors?.[0]?.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', reason: 'TOO_MANY_DIRECTIVES', limit: 50, found: 51 });
    expect(response.upstreamCalls).toBe(0);
  });

  it('stops parsing a document of more than 5,000 tokens', async () => {
    const response = await send(stack, {
      query: `{ securityFrameworks(organizationId: 1) { totalCount ${'__typename '.repeat(5_000)} } }`,
    });
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(response.errors?.[0]?.message).toMatch(/more th\w+ 5000 tokens/);
    expect(response.upstreamCalls).toBe(0);
  });

  it('refuses an operation whose cost is over 20,000 when first is given literally', async () => {
    const response = await send(stack, {
      query: '{ protectionDevices(first: 100) { nodes { id traffic(first: 100) { nodes { id } } } } }',
    });
    expect(response.status).toBe(400);
    expect(response.errors?.[0]).toMatchObject({
      extensions: { code: 'QUERY_TOO_COMPLEX', maxCost: 20_000, cost: 1 + 100 * (1 + 1 + (1 + 100 * 2)) },
    });
    expect(response.errors?.[0]?.message).toMatch(/over the limit of 20000/);
    expect(response.upstreamCalls).toBe(0);
  });

  it('counts first given through variables, and the default page sizes when it is left out', async () => {
    const tooBig = await send(stack, { query: DEVICES_WITH_TRAFFIC, variables: { devices: 100, traffic: 100 } });
    expect(tooBig.status).toBe(400);
    expect(tooBig.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', cost: 20_301 });
    expect(tooBig.upstreamCalls).toBe(0);

    // The same document with small pages runs (whatever the upstream then answers).
    const small = await send(stack, { query: DEVICES_WITH_TRAFFIC, variables: { devices: 2, traffic: 2 } });
    expect(small.status).toBe(200);
    expect(small.errors?.map((e) => e.extensions?.code) ?? []).not.toContain('QUERY_TOO_COMPLEX');
    expect(small.upstreamCalls).toBeGreaterThan(0);

    // No variables: devices 50 to a page, traffic 10: 1 + 50 × (1 + 1 + (1 + 10 × 2)) = 1,151.
    const document = parse(DEVICES_WITH_TRAFFIC);
    const operation = document.definitions[0] as OperationDefinitionNode;
    expect(estimateCost(buildSchema(), document, operation, {})).toBe(1_151);
  });

  // graphql.md, "Connections": the more specific error wins over the cost limit.
  it('refuses first/last outside 1–100 as BAD_USER_INPUT naming the argument, even where the cost limit would refuse too', async () => {
    const refused = (response: GraphQLResponse<any> & { upstreamCalls: number }, argument: string, value: number, coordinate: string) => {
      expect(response.status, response.text).toBe(400);
      expect(response.data).toBeUndefined();
      expect(response.errors).toEqual([
        { message: `${argument} must be between 1 and 100, got ${value} (${coordinate}).`, extensions: { code: 'BAD_USER_INPUT', field: argument } },
      ]);
      expect(response.upstreamCalls).toBe(0);
    };
    // Written in the document: 1 + 100 × (1 + 1 + (1 + 1,000 × 2)) is far over 20,000.
    refused(
      await send(stack, { query: '{ protectionDevices(first: 100) { nodes { id traffic(first: 1000) { nodes { id } } } } }' }),
      'first',
      1000,
      'ProtectionDevice.traffic',
    );
    // Through variables, at either level, forward or backward.
    refused(await send(stack, { query: DEVICES_WITH_TRAFFIC, variables: { devices: 100, traffic: 1000 } }), 'first', 1000, 'ProtectionDevice.traffic');
    refused(await send(stack, { query: DEVICES_WITH_TRAFFIC, variables: { devices: 5000, traffic: 5 } }), 'first', 5000, 'Query.protectionDevices');
    refused(
      await send(stack, { query: 'query ($n: Int) { trafficLog(deviceId: 1, last: $n) { nodes { id } } }', variables: { n: 100_000 } }),
      'last',
      100_000,
      'Query.trafficLog',
    );
    // Out of range but cheap: the same answer, whatever the cost.
    refused(await send(stack, { query: DEVICES_WITH_TRAFFIC, variables: { devices: 0, traffic: 1 } }), 'first', 0, 'Query.protectionDevices');
    refused(await send(stack, { query: '{ securityFrameworks(organizationId: 1, last: -1) { totalCount } }' }), 'last', -1, 'Query.securityFrameworks');
    // In range, the cost limit still answers for the size.
    const tooBig = await send(stack, { query: DEVICES_WITH_TRAFFIC, variables: { devices: 100, traffic: 100 } });
    expect(tooBig.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('does not refuse a page size on a field that @include or @skip leaves out', async () => {
    const response = await send(stack, {
      query: 'query ($with: Boolean!, $n: Int) { securityFrameworks(organizationId: 1) { totalCount } protectionDevices(first: $n) @include(if: $with) { totalCount } }',
      variables: { with: false, n: 1000 },
    });
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
    expect(response.data).toEqual({ securityFrameworks: { totalCount: 0 } });
  });

  it('leaves variables of the wrong type to execution: BAD_USER_INPUT, 400, no upstream call', async () => {
    const response = await send(stack, { query: DEVICES_WITH_TRAFFIC, variables: { devices: 'many' } });
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(response.upstreamCalls).toBe(0);
  });

  it('refuses a document too large to estimate (fragments spread 65,536 times) as QUERY_TOO_COMPLEX', async () => {
    const fragments = ['fragment F0 on Query { __typename }'];
    for (let i = 1; i <= 16; i++) fragments.push(`fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }`);
    const query = `query { ...F16 }\n${fragments.join('\n')}`;
    const document = parse(query);
    expect(estimateCost(buildSchema(), document, document.definitions[0] as OperationDefinitionNode, {})).toBe(Infinity);
    const response = await send(stack, { query });
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', maxCost: 20_000 });
    expect(response.errors?.[0]?.message).toContain('too large to estimate');
  });

  it('refuses a null sent as the `if` of @include or @skip: BAD_USER_INPUT, 400, no upstream call', async () => {
    const query = (directive: string) => `query ($on: Boolean = true) { protectionDevices(first: 1) @${directive}(if: $on) { totalCount } }`;
    for (const directive of ['include', 'skip']) {
      const response = await send(stack, { query: query(directive), variables: { on: null } });
      expect(response.status, directive).toBe(400);
      expect(response.errors, directive).toEqual([
        { message: `The "if" of @${directive} must be true or false, not null.`, extensions: { code: 'BAD_USER_INPUT' } },
      ]);
      expect(response.upstreamCalls, directive).toBe(0);
    }
    // Deeper, in a fragment: graphql-js would have failed that field alone, with no code.
    const nested = await send(stack, {
      query: 'query ($on: Boolean = true) { protectionDevices(first: 1) { nodes { ...F } } } fragment F on ProtectionDevice { id @skip(if: $on) }',
      variables: { on: null },
    });
    expect(nested.status).toBe(400);
    expect(nested.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(nested.upstreamCalls).toBe(0);
    // Left out, the variable takes its default.
    const defaulted = await send(stack, { query: query('include'), variables: {} });
    expect(defaulted.status).toBe(200);
    expect(defaulted.upstreamCalls).toBe(1);
  });

  it("lets Sandbox's introspection query through", async () => {
    const query = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, schemaDescription: true, directiveIsRepeatable: true, specifiedByUrl: true });
    const response = await send(stack, { query, operationName: 'IntrospectionQuery' });
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
    expect(response.data.__schema.queryType.name).toBe('Query');
  });

  it('refuses batched requests, naming the setting that turns them on', async () => {
    const operation = { query: '{ securityFrameworks(organizationId: 1) { totalCount } }' };
    const response = await send(stack, [operation, operation]);
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.extensions?.code).toBe('BATCHING_DISABLED');
    expect(response.errors?.[0]?.message).toContain('MAX_BATCH_SIZE');
    expect(response.upstreamCalls).toBe(0);
  });
});

describe('query limits (a call budget of 2, batches of at most 2)', () => {
  let stack: Stack;
  const frameworkIds: string[] = [];
  beforeAll(async () => {
    stack = await startStack({
      v1: { seed: 'none' },
      key: KEY,
      gateway: { limits: { ...DEFAULT_LIMITS, maxUpstreamCalls: 2, maxBatchSize: 2 } },
    });
    for (const organizationId of ['1', '2', '3']) {
      const created = await send(stack, {
        query: /* GraphQL */ `
          mutation Create($organizationId: ID!) {
            createSecurityFramework(organizationId: $organizationId, input: {
              title: "Baseline", controls: [{ controlId: "c1", type: "policy", title: "Policy", weight: 1, frequency: "0 0 * * *", evidenceType: "document" }]
            }) { id }
          }
        `,
        variables: { organizationId },
      });
      expect(created.errors).toBeUndefined();
      frameworkIds.push(created.data.createSecurityFramework.id);
    }
  });
  afterAll(() => stack?.close());

  it('fails the fields past the budget with UPSTREAM_BUDGET_EXCEEDED and returns the rest', async () => {
    const lookups = frameworkIds.map((id, i) => `f${i + 1}: securityFramework(organizationId: ${i + 1}, id: "${id}") { id title }`);
    const response = await send(stack, { query: `query Three { ${lookups.join(' ')} }` });
    expect(response.status).toBe(200);
    expect(response.upstreamCalls).toBe(2);
    expect(response.errors).toHaveLength(1);
    const [error] = response.errors!;
    expect(error!.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED', limit: 2 });
    const failed = error!.path![0] as string;
    expect(response.data[failed]).toBeNull();
    const answered = Object.keys(response.data).filter((field) => field !== failed);
    expect(answered).toHaveLength(2);
    for (const field of answered) expect(response.data[field]).toMatchObject({ title: 'Baseline' });
  });

  it('runs a batch within the bound and refuses a larger one', async () => {
    const operation = { query: '{ securityFrameworks(organizationId: 1) { totalCount } }' };
    const within = await send(stack, [operation, operation]);
    expect(within.status).toBe(200);
    const answers = JSON.parse(within.text);
    expect(answers.map((answer: { data: unknown }) => answer.data)).toEqual([
      { securityFrameworks: { totalCount: 1 } },
      { securityFrameworks: { totalCount: 1 } },
    ]);
    // The operations of a batch share the request's upstream calls: each reports those made so
    // far, and the last to answer reports both.
    const calls = answers.map((answer: { extensions: { cost: { upstreamCalls: number } } }) => answer.extensions.cost.upstreamCalls);
    expect(Math.max(...calls)).toBe(within.upstreamCalls);

    const over = await send(stack, [operation, operation, operation]);
    expect(over.status).toBe(400);
    expect(over.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', reason: 'BATCH_TOO_LARGE', limit: 2 });
    expect(over.upstreamCalls).toBe(0);
  });
});

describe('CallBudget', () => {
  it('allows `limit` calls, then throws a GraphQLError with UPSTREAM_BUDGET_EXCEEDED on each further one', () => {
    const budget = new CallBudget(2);
    budget.take();
    budget.take();
    expect(budget.exhausted).toBe(true);
    for (let i = 0; i < 2; i++) {
      let thrown: unknown;
      try {
        budget.take();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(GraphQLError);
      expect((thrown as GraphQLError).extensions).toEqual({ code: 'UPSTREAM_BUDGET_EXCEEDED', limit: 2 });
    }
    expect(budget.taken).toBe(2);
  });
});

describe('limit settings', () => {
  it('has defaults that the environment can change', () => {
    expect(parseGatewayConfig({}).limits).toEqual({
      maxDepth: 12,
      maxAliases: 30,
      maxDirectives: 50,
      maxTokens: 5_000,
      maxCost: 20_000,
      maxUpstreamCalls: 150,
      maxBatchSize: 0,
    });
    const limits = parseGatewayConfig({ MAX_DEPTH: '8', MAX_COST: '40000', MAX_UPSTREAM_CALLS: '10', MAX_BATCH_SIZE: '5' }).limits;
    expect(limits).toMatchObject({ maxDepth: 8, maxCost: 40_000, maxUpstreamCalls: 10, maxBatchSize: 5 });
  });

  it.each([
    ['MAX_DEPTH', 'deep', 'MAX_DEPTH: expected an integer from 1 to 100, got "deep"'],
    ['MAX_DEPTH', '0', 'MAX_DEPTH: expected an integer from 1 to 100, got 0'],
    ['MAX_TOKENS', '10', 'MAX_TOKENS: expected an integer from 500 to 1000000, got 10'],
    ['MAX_COST', '-1', 'MAX_COST: expected an integer from 1 to 100000000, got "-1"'],
    ['MAX_UPSTREAM_CALLS', '1.5', 'MAX_UPSTREAM_CALLS: expected an integer from 1 to 100000, got "1.5"'],
  ])('refuses %s=%s with one line naming it', (name, value, message) => {
    expect(() => parseGatewayConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseGatewayConfig({ [name]: value })).toThrow(message);
  });
});
