// NODE_ENV=production (graphql.md, "Running"): no landing page, no introspection, no "Did you
// mean" suggestions, no stack traces, CSRF prevention on; LANDING_PAGE, INTROSPECTION,
// FIELD_SUGGESTIONS and STACK_TRACES each turn one back on, and only that one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import type { Gateway } from '../../../src/gateway/server.ts';
import { refusedUrl } from '../../helpers/fault-upstream.ts';
import { postGraphQL, startGatewayOn, startStack, TEST_KEYS, type GraphQLResponse, type Stack } from '../../helpers/gateway.ts';

const PRODUCTION = { NODE_ENV: 'production' };

let stack: Stack;
const extra: Gateway[] = [];
/** Gateways in front of the same upstream, each with one setting turned back on. */
let withSetting: Record<'LANDING_PAGE' | 'INTROSPECTION' | 'FIELD_SUGGESTIONS' | 'STACK_TRACES', Gateway>;
/** A production gateway whose upstream is down. */
let orphan: Gateway;

async function productionGateway(env: Record<string, string>, upstreamUrl: string): Promise<Gateway> {
  const { gateway } = await startGatewayOn(upstreamUrl, { ...PRODUCTION, ...env });
  extra.push(gateway);
  return gateway;
}

beforeAll(async () => {
  stack = await startStack({ v1: { seed: 'none' }, key: TEST_KEYS.admin, gateway: parseGatewayConfig(PRODUCTION) });
  const upstream = stack.proxy.url;
  const [landing, introspection, suggestions, stackTraces] = await Promise.all([
    productionGateway({ LANDING_PAGE: 'true' }, upstream),
    productionGateway({ INTROSPECTION: 'true' }, upstream),
    productionGateway({ FIELD_SUGGESTIONS: 'true' }, upstream),
    productionGateway({ STACK_TRACES: 'true' }, upstream),
  ]);
  withSetting = {
    LANDING_PAGE: landing!,
    INTROSPECTION: introspection!,
    FIELD_SUGGESTIONS: suggestions!,
    STACK_TRACES: stackTraces!,
  };
  orphan = await productionGateway({}, await refusedUrl());
});

afterAll(async () => {
  await Promise.all(extra.map((gateway) => gateway.close()));
  await stack?.close();
});

function send(gateway: Gateway, query: string, variables: Record<string, unknown> = {}, key: string | null = TEST_KEYS.admin) {
  return postGraphQL<Record<string, unknown>>(gateway.url, { query, variables }, key === null ? {} : { 'x-service-token': key });
}

function landingPage(gateway: Gateway) {
  // What a browser sends when someone opens the URL: no key, no preflight header.
  return fetch(gateway.url, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
}

const INTROSPECTION_QUERIES = ['{ __schema { queryType { name } } }', '{ __type(name: "Query") { name } }'];

/** Mistakes graphql-js answers with a suggestion, in the document and in the variables. */
const MISTAKES: { name: string; query: string; variables?: Record<string, unknown> }[] = [
  { name: 'misspelt field', query: '{ securityFramework(organizationId: "1", id: "1") { titel } }' },
  { name: 'misspelt argument', query: '{ securityFrameworks(organisationId: "1") { totalCount } }' },
  { name: 'misspelt enum literal', query: '{ protectionDevices(orderBy: { field: DEVICE_IDD }) { totalCount } }' },
  {
    name: 'misspelt enum in variables',
    query: 'query ($order: ProtectionDeviceOrder) { protectionDevices(orderBy: $order) { totalCount } }',
    variables: { order: { field: 'DEVICE_IDD' } },
  },
  {
    name: 'misspelt input field in variables',
    query: 'query ($order: ProtectionDeviceOrder) { protectionDevices(orderBy: $order) { totalCount } }',
    variables: { order: { feild: 'ID' } },
  },
];

describe('NODE_ENV=production', () => {
  it('serves no landing page', async () => {
    const response = await landingPage(stack.gateway);
    expect(response.headers.get('content-type')).not.toContain('text/html');
    const text = await response.text();
    expect(text).not.toContain('<html');
    expect(text).not.toContain('embeddable-sandbox');
    // What answers instead is the missing credential: a browser's plain GET carries none.
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('refuses introspection, before any upstream call', async () => {
    stack.proxy.reset();
    for (const query of INTROSPECTION_QUERIES) {
      const response = await send(stack.gateway, query);
      expect(response.status, query).toBe(400);
      expect(response.data, query).toBeUndefined();
      expect(response.errors?.map((error) => error.extensions?.code), query).toEqual(['GRAPHQL_VALIDATION_FAILED']);
      expect(response.errors?.[0]?.message).toMatch(/^Introspection is off on this gateway \(INTROSPECTION=false/);
      expect(response.errors?.[0]?.message).not.toContain('ApolloServer');
      expect(response.errors?.[0]?.extensions?.reason).toBe('INTROSPECTION_DISABLED');
    }
    // __typename is not introspection of the schema.
    const typename = await send(stack.gateway, '{ __typename }');
    expect(typename.data).toEqual({ __typename: 'Query' });
    expect(stack.proxy.calls).toEqual([]);
  });

  it.each(MISTAKES)('suggests nothing for a $name', async ({ query, variables }) => {
    const response = await send(stack.gateway, query, variables);
    expect(response.status).toBe(400);
    expect(response.errors?.length).toBeGreaterThan(0);
    expect(response.text).not.toMatch(/did you mean/i);
  });

  it('shows no stack trace, whatever the error', async () => {
    const responses: GraphQLResponse<unknown>[] = [
      await send(stack.gateway, '{ securityFrameworks('), // parse error
      await send(stack.gateway, '{ nothingHere }'), // validation error
      await send(stack.gateway, INTROSPECTION_QUERIES[0]!),
      await send(stack.gateway, MISTAKES[3]!.query, MISTAKES[3]!.variables), // variable coercion
      await send(stack.gateway, '{ securityFrameworks(organizationId: "1", first: 0) { totalCount } }'), // BAD_USER_INPUT of the gateway
      await send(stack.gateway, '{ securityFrameworks(organizationId: "1") { totalCount } }', {}, null), // UNAUTHENTICATED
      await send(stack.gateway, '{ securityFrameworks(organizationId: "2") { totalCount } }', {}, TEST_KEYS.org1), // FORBIDDEN upstream
      await send(stack.gateway, 'mutation { deleteSecurityFramework(organizationId: "1", id: "999") { securityFramework { id } } }'), // NOT_FOUND
      await send(orphan, '{ securityFrameworks(organizationId: "1") { totalCount } }'), // UPSTREAM_UNAVAILABLE
      await postGraphQL(stack.gateway.url, '{"query": "{ __typename }"', { 'x-service-token': TEST_KEYS.admin }), // malformed JSON
    ];
    const codes = responses.map((response) => response.errors?.[0]?.extensions?.code);
    expect(codes).toEqual([
      'GRAPHQL_PARSE_FAILED',
      'GRAPHQL_VALIDATION_FAILED',
      'GRAPHQL_VALIDATION_FAILED',
      'BAD_USER_INPUT',
      'BAD_USER_INPUT',
      'UNAUTHENTICATED',
      'FORBIDDEN',
      'NOT_FOUND',
      'UPSTREAM_UNAVAILABLE',
      'BAD_REQUEST',
    ]);
    for (const response of responses) {
      expect(response.text).not.toContain('stacktrace');
      expect(response.text).not.toMatch(/\.ts:\d+|node_modules|\n\s+at /);
    }
  });

  it('keeps CSRF prevention on', async () => {
    // With a key: the request is the caller's, and what refuses it is CSRF prevention.
    const key = { 'x-service-token': TEST_KEYS.admin };
    const response = await fetch(`${stack.gateway.url}?query=${encodeURIComponent('{ __typename }')}`, { headers: key });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Cross-Site Request Forgery');
    const text = await fetch(stack.gateway.url, { method: 'POST', headers: { 'content-type': 'text/plain', ...key }, body: '{"query":"{ __typename }"}' });
    expect(text.status).toBe(400);
  });

  it('still answers ordinary operations', async () => {
    const response = await send(stack.gateway, '{ securityFrameworks(organizationId: "1") { totalCount } }');
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ securityFrameworks: { totalCount: 0 } });
  });
});

describe('each setting turns one back on in production', () => {
  it('LANDING_PAGE=true serves the offline explorer with its link to Sandbox, and nothing else comes back', async () => {
    const response = await landingPage(withSetting.LANDING_PAGE);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(await response.text()).toContain('"sandbox":"/graphql?explorer=sandbox"');
    const sandbox = await fetch(`${withSetting.LANDING_PAGE.url}?explorer=sandbox`, { headers: { accept: 'text/html' } });
    expect(await sandbox.text()).toContain('https://embeddable-sandbox.cdn.apollographql.com');

    const introspection = await send(withSetting.LANDING_PAGE, INTROSPECTION_QUERIES[0]!);
    expect(introspection.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const mistake = await send(withSetting.LANDING_PAGE, MISTAKES[0]!.query);
    expect(mistake.text).not.toMatch(/did you mean/i);
  });

  it('INTROSPECTION=true answers introspection, and nothing else comes back', async () => {
    for (const query of INTROSPECTION_QUERIES) {
      const response = await send(withSetting.INTROSPECTION, query);
      expect(response.status, query).toBe(200);
      expect(response.errors, query).toBeUndefined();
    }
    const schema = await send(withSetting.INTROSPECTION, '{ __schema { queryType { name } mutationType { name } } }');
    expect(schema.data).toEqual({ __schema: { queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } } });

    const page = await landingPage(withSetting.INTROSPECTION);
    expect(page.headers.get('content-type')).not.toContain('text/html');
    const mistake = await send(withSetting.INTROSPECTION, MISTAKES[0]!.query);
    expect(mistake.text).not.toMatch(/did you mean/i);
  });

  it.each(MISTAKES)('FIELD_SUGGESTIONS=true suggests again for a $name', async ({ query, variables }) => {
    const response = await send(withSetting.FIELD_SUGGESTIONS, query, variables);
    expect(response.status).toBe(400);
    expect(response.errors?.some((error) => /Did you mean .+\?$/.test(error.message))).toBe(true);
    expect(response.text).not.toContain('stacktrace');
  });

  it('FIELD_SUGGESTIONS=true names the right field', async () => {
    const response = await send(withSetting.FIELD_SUGGESTIONS, MISTAKES[0]!.query);
    expect(response.errors?.[0]?.message).toBe('Cannot query field "titel" on type "SecurityFramework". Did you mean "title"?');
    const hidden = await send(stack.gateway, MISTAKES[0]!.query);
    expect(hidden.errors?.[0]?.message).toBe('Cannot query field "titel" on type "SecurityFramework".');
  });

  it('STACK_TRACES=true adds extensions.stacktrace, and nothing else comes back', async () => {
    const parse = await send(withSetting.STACK_TRACES, '{ securityFrameworks(');
    const stacktrace = parse.errors?.[0]?.extensions?.stacktrace;
    expect(Array.isArray(stacktrace)).toBe(true);
    expect(stacktrace[0]).toMatch(/^GraphQLError: Syntax Error/);

    const mistake = await send(withSetting.STACK_TRACES, MISTAKES[0]!.query);
    expect(mistake.errors?.[0]?.extensions?.stacktrace).toBeDefined();
    expect(mistake.text).not.toMatch(/did you mean/i);
    const introspection = await send(withSetting.STACK_TRACES, INTROSPECTION_QUERIES[0]!);
    expect(introspection.data).toBeUndefined();
  });
});
