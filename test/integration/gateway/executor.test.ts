// The executor (src/gateway/executor.ts): graphql-jit runs the queries, compiled once per document
// and operation name, and its answers are kept to graphql-js's. The oracle is graphql-js itself:
// `execute` on the same executable schema, with a context made as the gateway makes one (its own
// upstream client and loaders), against the same v1 service. Over HTTP first, as clients meet it;
// then `jitExecutor` directly, for what HTTP cannot reach (a small cache, a document graphql-jit
// cannot compile, a failure shared by several fields).
import type { GatewayExecutor, GatewayGraphQLRequestContext } from '@apollo/server-gateway-interface';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { execute, getIntrospectionQuery, Kind, parse, print, type ExecutionResult, type OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayContext } from '../../../src/gateway/context.ts';
import { compiledBytes, createCompiledCache, entryBytes, fieldsToCompile } from '../../../src/gateway/executor/cache.ts';
import { jitExecutor } from '../../../src/gateway/executor/executor.ts';
import { contextFactory } from '../../../src/gateway/context.ts';
import { TailHub } from '../../../src/gateway/live-tail/hub.ts';
import { exportLinksFor } from '../../../src/gateway/export-links/index.ts';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { buildSchema } from '../../../src/gateway/domains/index.ts';
import { GatewayMetrics } from '../../../src/gateway/observability/metrics.ts';
import { Transport } from '../../../src/gateway/upstream/transport.ts';
import { insertFramework, type Evidence } from 'reference-service/testing';
import { DEMO_ADMIN_KEY, postGraphQL, startStack, type GraphQLResponse, type Stack } from '../../helpers/gateway.ts';
import { v1Request } from '../../helpers/v1.ts';
import {
  ExecDevicePageDocument,
  ExecEvidenceDocument,
  ExecFrameworkListTwiceDocument,
  ExecFrameworksDocument,
  ExecFrameworkTwiceDocument,
  ExecPickDevicesDocument,
  ExecPickFrameworksDocument,
  ExecShapesDocument,
  ExecSkipWithDefaultDocument,
  ExecTrafficTwiceDocument,
  ExecTwoDevicesTrafficDocument,
  ExecTypeByNameDocument,
  type ExecDevicePageQuery,
  type ExecDevicePageQueryVariables,
} from '../../generated/operations.ts';

const ORG1_KEY = 'demo-org1-key-acme';
const schema = buildSchema();

let stack: Stack;
/** Organization 1's framework whose one evidence has a `datetime` that is not a date. */
let oneBadDate: number;
/** Organization 1's framework whose one evidence has a bad date, user id and e-mail. */
let threeBadValues: number;

function evidence(overrides: Partial<Evidence>): Evidence {
  return {
    files: [],
    details: 'Reviewed.',
    datetime: '2026-10-01T08:30:00Z',
    completed: 1,
    residual_risk: 0.25,
    submitted_by: { user_id: '3f6c2a9e-8d41-4b7a-9c0e-5a1d2b3c4d5e', user_email: 'ciso@acme.example' },
    ...overrides,
  };
}

function frameworkWith(title: string, evidences: Evidence[]) {
  return {
    title,
    security_frameworks: [
      {
        id: 'X.1',
        type: 'control',
        title: 'Stored by another deployment',
        weight: 1,
        details: {},
        evidences,
        frequency: '0 9 * * 1',
        description: '',
        evidence_type: 'document',
      },
    ],
  };
}

beforeAll(async () => {
  stack = await startStack();
  // Stored directly: the v1 operations would refuse these values; another deployment may hold them.
  oneBadDate = insertFramework(stack.v1.db, 1, frameworkWith('One bad date', [evidence({}), evidence({ datetime: 'last Tuesday' })]));
  threeBadValues = insertFramework(
    stack.v1.db,
    1,
    frameworkWith('Three bad values', [evidence({ datetime: 'last Tuesday', submitted_by: { user_id: 'nobody', user_email: 'nowhere' } })]),
  );
});

afterAll(async () => {
  await transport?.close();
  await stack?.close();
});

/** A context as the gateway makes one per request, straight to the v1 service (not through the proxy). */
function contextFor(key: string, maxUpstreamCalls?: number): GatewayContext {
  const config = parseGatewayConfig(maxUpstreamCalls === undefined ? {} : { MAX_UPSTREAM_CALLS: String(maxUpstreamCalls) });
  transport ??= new Transport({ baseUrl: stack.v1.url });
  const tail = new TailHub({ settings: config.tail, client: (apiKey, signal) => transport!.client({ apiKey, signal }), onPoll() {} });
  const exportLinks = exportLinksFor(config.exportLinkTtlMs);
  return contextFactory(transport, new GatewayMetrics(), tail, exportLinks, config)({ requestId: 'executor-test', apiKey: key, signal: new AbortController().signal, origin: 'http://127.0.0.1' });
}
let transport: Transport | undefined;

/** A result as JSON carries it (errors as their message, locations, path and extensions). */
function plain(result: ExecutionResult): { data?: unknown; errors?: unknown[] } {
  return JSON.parse(JSON.stringify(result));
}

type Source = string | TypedDocumentNode<any, any>;

function sourceOf(document: Source): string {
  return typeof document === 'string' ? document : print(document);
}

/** graphql-js's answer to the operation, with a fresh context for `key`. */
async function graphqlJs(document: Source, variables: Record<string, unknown> = {}, key = DEMO_ADMIN_KEY, operationName?: string, budget?: number) {
  const result = await execute({
    schema,
    document: parse(sourceOf(document)),
    contextValue: contextFor(key, budget),
    variableValues: variables,
    operationName,
  });
  return plain(result);
}

/** What a client reads of an error, whichever executor made it. */
function errorsAsSeen(errors: readonly unknown[] | undefined) {
  return (errors as { message: string; path?: unknown; extensions?: { code?: unknown } }[] | undefined)?.map((error) => ({
    message: error.message,
    path: error.path,
    code: error.extensions?.code,
  }));
}

/**
 * Sends the operation over HTTP and checks its answer against graphql-js's: the same data, key for
 * key in the same order, and the same errors (message, path, code).
 */
async function expectAsGraphqlJs<TData>(
  document: Source,
  variables: Record<string, unknown> = {},
  { key = DEMO_ADMIN_KEY, operationName }: { key?: string; operationName?: string } = {},
): Promise<GraphQLResponse<TData>> {
  const [response, expected] = await Promise.all([
    postGraphQL<TData>(stack.gateway.url, { query: sourceOf(document), variables, operationName }, { 'x-service-token': key }),
    graphqlJs(document, variables, key, operationName),
  ]);
  const label = `${operationName ?? ''} ${JSON.stringify(variables)}: ${response.text.slice(0, 500)}`;
  expect(JSON.stringify(response.data), label).toBe(JSON.stringify(expected.data));
  expect(errorsAsSeen(response.errors), label).toEqual(errorsAsSeen(expected.errors));
  return response;
}

describe('queries over HTTP answer as graphql-js does', () => {
  it('one paging document, run again and again with new variables, walks each list as graphql-js and the v1 service do', async () => {
    const filters: (ExecDevicePageQueryVariables['filter'] | undefined)[] = [
      undefined,
      { organizationId: '1' },
      { organizationId: '2' },
      { organizationId: '3' },
      { services: ['waf'] },
    ];
    for (const filter of filters) {
      const ids: string[] = [];
      let after: string | null = null;
      for (let page = 0; page < 10; page++) {
        const variables: ExecDevicePageQueryVariables = { first: 3, after, filter };
        const response = await expectAsGraphqlJs<ExecDevicePageQuery>(ExecDevicePageDocument, variables);
        const connection = response.data!.protectionDevices!;
        ids.push(...connection.edges.map((edge) => edge.node.id));
        if (!connection.pageInfo.hasNextPage) break;
        after = connection.pageInfo.endCursor ?? null;
      }
      const query = new URLSearchParams({ limit: '500' });
      if (filter?.organizationId) query.set('organization', String(filter.organizationId));
      for (const service of filter?.services ?? []) query.append('services', service);
      const v1 = await v1Request(stack.v1, 'GET', `/api/v1/atb?${query}`, { token: DEMO_ADMIN_KEY });
      const held = (v1.json.data as { id: number }[]).map((device) => String(device.id));
      expect(held.length, JSON.stringify(filter)).toBeGreaterThan(0);
      expect(ids, JSON.stringify(filter)).toEqual(held);
    }

    // Backward from the end, ordered by type: the same compiled document with other arguments set.
    const backward: string[] = [];
    let before: string | null = null;
    for (let page = 0; page < 10; page++) {
      const variables: ExecDevicePageQueryVariables = { last: 5, before, orderBy: { field: 'TYPE', direction: 'DESC' } };
      const response = await expectAsGraphqlJs<ExecDevicePageQuery>(ExecDevicePageDocument, variables);
      const connection = response.data!.protectionDevices!;
      backward.unshift(...connection.edges.map((edge) => edge.node.id));
      if (!connection.pageInfo.hasPreviousPage) break;
      before = connection.pageInfo.startCursor ?? null;
    }
    const v1 = await v1Request(stack.v1, 'GET', '/api/v1/atb?limit=500&order=-type', { token: DEMO_ADMIN_KEY });
    expect(backward).toEqual((v1.json.data as { id: number }[]).map((device) => String(device.id)));
  });

  it('fragments, aliases, __typename, @skip/@include driven by variables and a nested connection, for every flag', async () => {
    for (const [withTraffic, skipPlugin] of [
      [true, false],
      [false, true],
      [true, true],
      [false, false],
    ] as const) {
      const response = await expectAsGraphqlJs<any>(ExecShapesDocument, { id: '3', trafficFirst: 2, withTraffic, skipPlugin });
      const device = response.data.device;
      expect(response.data.__typename).toBe('Query');
      expect(response.data.missing).toBeNull();
      expect(device.__typename).toBe('ProtectionDevice');
      expect(device.id).toBe('3');
      expect(typeof device.kind).toBe('string');
      expect('newest' in device, `withTraffic ${withTraffic}`).toBe(withTraffic);
      expect('oldest' in device, `withTraffic ${withTraffic}`).toBe(withTraffic);
      expect('plugin' in device, `skipPlugin ${skipPlugin}`).toBe(!skipPlugin);
      if (withTraffic) {
        expect(device.newest.edges).toHaveLength(2);
        expect(device.newest.edges.map((edge: any) => edge.node.__typename)).toEqual(['TrafficLogEntry', 'TrafficLogEntry']);
        expect(device.newest.pageInfo.endCursor).toBe(device.newest.edges[1].cursor);
        expect(device.oldest.nodes).toHaveLength(1);
      }
    }
  });

  it('the same document in flight several times at once, each with its own variables', async () => {
    const answers = await Promise.all(
      ['1', '2', '4', '5', '7', '12'].map((id, i) =>
        expectAsGraphqlJs<any>(ExecShapesDocument, { id, trafficFirst: 1 + (i % 3), withTraffic: i % 2 === 0, skipPlugin: i % 3 === 0 }),
      ),
    );
    expect(answers.map((answer) => answer.data.device.id)).toEqual(['1', '2', '4', '5', '7', '12']);
    expect(answers.map((answer) => answer.data.device.newest?.edges.length)).toEqual([1, undefined, 3, undefined, 2, undefined]);
  });

  it('security frameworks with their controls and evidence, page by page', async () => {
    // Organization 1 holds this suite's frameworks with values the scalars refuse (below).
    for (const organizationId of ['2', '3']) {
      const first = await expectAsGraphqlJs<any>(ExecFrameworksDocument, { organizationId, first: 1 });
      expect(first.data.securityFrameworks!.nodes).toHaveLength(1);
      const next = await expectAsGraphqlJs<any>(ExecFrameworksDocument, {
        organizationId,
        first: 2,
        after: first.data.securityFrameworks!.pageInfo.endCursor,
      });
      expect(next.data.securityFrameworks!.pageInfo.hasPreviousPage).toBe(true);
    }
  });

  it('introspection: the whole schema as graphql-js gives it, and __type with a variable', async () => {
    const full = await expectAsGraphqlJs<any>(
      getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true }),
    );
    expect(full.data.__schema.queryType.name).toBe('Query');
    expect(full.data.__schema.types.map((type: { name: string }) => type.name)).toContain('ProtectionDevice');

    const device = await expectAsGraphqlJs<any>(ExecTypeByNameDocument, { name: 'ProtectionDevice' });
    expect(device.data.__type.fields.map((field: { name: string }) => field.name)).toContain('traffic');
    const entry = await expectAsGraphqlJs<any>(ExecTypeByNameDocument, { name: 'TrafficLogEntry' });
    expect(entry.data.__type.kind).toBe('OBJECT');
    expect((await expectAsGraphqlJs<any>(ExecTypeByNameDocument, { name: 'NoSuchType' })).data).toEqual({ __type: null });
  });

  it('a document with two operations runs the one operationName names, every time', async () => {
    const document = `${print(ExecPickDevicesDocument)}\n${print(ExecPickFrameworksDocument)}`;
    for (const operationName of ['ExecPickFrameworks', 'ExecPickDevices', 'ExecPickFrameworks', 'ExecPickDevices']) {
      const response = await expectAsGraphqlJs<any>(document, {}, { operationName });
      expect(Object.keys(response.data)).toEqual([operationName === 'ExecPickDevices' ? 'protectionDevices' : 'securityFrameworks']);
    }
  });
});

describe('errors over HTTP as graphql-js reports them', () => {
  it('nullable siblings that fail with the same upstream failure each keep their own error', async () => {
    stack.proxy.reset();
    const response = await expectAsGraphqlJs<any>(ExecFrameworkTwiceDocument, { organizationId: '2', a: '1', b: '2' }, { key: ORG1_KEY });
    expect(response.data).toEqual({ a: null, b: null });
    expect(errorsAsSeen(response.errors)).toEqual([
      { message: expect.stringMatching(/^Forbidden: /), path: ['a'], code: 'FORBIDDEN' },
      { message: expect.stringMatching(/^Forbidden: /), path: ['b'], code: 'FORBIDDEN' },
    ]);
    // One failure: the organization's list was asked for once.
    expect(stack.proxy.calls.map((call) => call.path)).toEqual(['/api/v1/organizations/2/security-frameworks']);
  });

  it('root lists that fail with the same failure are each null with their own error, `data` kept', async () => {
    const response = await expectAsGraphqlJs<any>(ExecFrameworkListTwiceDocument, { organizationId: '2' }, { key: ORG1_KEY });
    expect(response.data).toEqual({ a: null, b: null });
    expect(errorsAsSeen(response.errors)).toEqual([
      { message: expect.any(String), path: ['a'], code: 'FORBIDDEN' },
      { message: expect.any(String), path: ['b'], code: 'FORBIDDEN' },
    ]);
  });

  it('a value from upstream that its scalar cannot represent is UPSTREAM_BAD_RESPONSE at its field, not an internal error', async () => {
    const logged = stack.logs.length;
    const response = await expectAsGraphqlJs<any>(ExecEvidenceDocument, { organizationId: '1', id: String(oneBadDate) });
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ securityFramework: null });
    expect(response.errors).toEqual([
      {
        message: 'The upstream sent a value that is not a valid DateTime.',
        locations: [expect.any(Object)],
        path: ['securityFramework', 'controls', 0, 'evidences', 1, 'datetime'],
        extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
      },
    ]);
    expect(stack.logs.slice(logged).filter((line) => line.includes('internal error'))).toEqual([]);
  });

  it('variables it refuses: graphql-js’s words with its suggestions, BAD_USER_INPUT, HTTP 400', async () => {
    const cases: Record<string, unknown>[] = [
      { first: 2, orderBy: { field: 'TYP' } },
      { first: 2, orderBy: { fild: 'TYPE' } },
      { first: 'two' },
      { filter: { services: [1, null] } },
    ];
    for (const variables of cases) {
      const label = JSON.stringify(variables);
      const [response, expected] = await Promise.all([
        postGraphQL<unknown>(stack.gateway.url, { query: print(ExecDevicePageDocument), variables }, { 'x-service-token': DEMO_ADMIN_KEY }),
        graphqlJs(ExecDevicePageDocument, variables),
      ]);
      expect(response.status, label).toBe(400);
      expect(response.data, label).toBeUndefined();
      expect(expected.data, label).toBeUndefined();
      // Apollo gives graphql-js's coercion errors their code.
      expect(errorsAsSeen(response.errors), label).toEqual(errorsAsSeen(expected.errors)!.map((error) => ({ ...error, code: 'BAD_USER_INPUT' })));
    }
    const misspelt = await postGraphQL<unknown>(
      stack.gateway.url,
      { query: print(ExecDevicePageDocument), variables: { orderBy: { field: 'TYP' } } },
      { 'x-service-token': DEMO_ADMIN_KEY },
    );
    expect(misspelt.errors?.map((error) => error.message)).toEqual([
      'Variable "$orderBy" got invalid value "TYP" at "orderBy.field"; Value "TYP" does not exist in "ProtectionDeviceOrderField" enum. Did you mean the enum value "TYPE"?',
    ]);
  });

  // graphql-js completes an object's fields in order and gives up at the first that nulls it, so
  // one error stands for the nulled object; graphql-jit completes them all and reports each.
  it('two traffic fields of one device that fail each their own way: each null with its own error, the device kept, as graphql-js', async () => {
    const response = await expectAsGraphqlJs<any>(ExecTrafficTwiceDocument, { id: '1', a: 2, b: 2, after: 'abc', before: 'xyz' });
    expect(response.data).toEqual({ protectionDevice: { id: '1', a: null, b: null } });
    expect(errorsAsSeen(response.errors)).toEqual([
      { message: 'The cursor in after is not valid', path: ['protectionDevice', 'a'], code: 'BAD_USER_INPUT' },
      { message: 'The cursor in before is not valid', path: ['protectionDevice', 'b'], code: 'BAD_USER_INPUT' },
    ]);
  });

  it('several values of one object that their scalars cannot represent: one error, as graphql-js', async () => {
    const response = await expectAsGraphqlJs<any>(ExecEvidenceDocument, { organizationId: '1', id: String(threeBadValues) });
    expect(response.data).toEqual({ securityFramework: null });
    expect(errorsAsSeen(response.errors)).toEqual([
      {
        message: 'The upstream sent a value that is not a valid DateTime.',
        path: ['securityFramework', 'controls', 0, 'evidences', 0, 'datetime'],
        code: 'UPSTREAM_BAD_RESPONSE',
      },
    ]);
  });
});

/** The request context Apollo hands the executor, reduced to what an executor reads. */
function requestContext(
  source: string,
  variables: Record<string, unknown>,
  context: GatewayContext,
  operationName?: string,
): GatewayGraphQLRequestContext<GatewayContext> {
  const document = parse(source);
  const operation = document.definitions.find(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION && (operationName === undefined || definition.name?.value === operationName),
  )!;
  return { document, source, operation, operationName: operationName ?? null, context, request: { query: source, variables } } as unknown as GatewayGraphQLRequestContext<GatewayContext>;
}

async function runJit(
  executor: GatewayExecutor,
  document: Source,
  variables: Record<string, unknown> = {},
  { key = DEMO_ADMIN_KEY, operationName, budget }: { key?: string; operationName?: string; budget?: number } = {},
) {
  return plain(await executor(requestContext(sourceOf(document), variables, contextFor(key, budget), operationName)));
}

describe('jitExecutor directly', () => {
  it('answers as graphql-js with a cache smaller than the documents in use (by count or by memory)', async () => {
    const twoOperations = `${print(ExecPickDevicesDocument)}\n${print(ExecPickFrameworksDocument)}`;
    const runs: [Source, Record<string, unknown>, string?][] = [
      [ExecDevicePageDocument, { first: 2, filter: { organizationId: '2' } }],
      [twoOperations, {}, 'ExecPickFrameworks'],
      [ExecTypeByNameDocument, { name: 'Organization' }],
      [twoOperations, {}, 'ExecPickDevices'],
      [ExecDevicePageDocument, { last: 1 }],
      [ExecFrameworksDocument, { organizationId: '3', first: 1 }],
      [ExecTypeByNameDocument, { name: 'PageInfo' }],
    ];
    // Bounded by count, or by estimated memory: nothing kept (1 byte), or an entry or two.
    for (const options of [{ cacheSize: 1 }, { cacheSize: 2 }, { cacheBytes: 1 }, { cacheBytes: 200_000 }]) {
      const executor = jitExecutor(schema, options);
      for (let round = 0; round < 3; round++) {
        for (const [document, variables, operationName] of runs) {
          const label = `cache ${JSON.stringify(options)}, round ${round}, ${operationName ?? sourceOf(document).slice(0, 40)} ${JSON.stringify(variables)}`;
          const [jit, js] = await Promise.all([
            runJit(executor, document, variables, { operationName }),
            graphqlJs(document, variables, DEMO_ADMIN_KEY, operationName),
          ]);
          expect(js.errors, label).toBeUndefined();
          expect(JSON.stringify(jit), label).toBe(JSON.stringify(js));
        }
      }
    }
  });

  it('runs on graphql-js a document graphql-jit cannot compile', async () => {
    // graphql-jit refuses a nullable variable in @skip's `if: Boolean!` (Apollo's validation does
    // too; the executor must not depend on it).
    const document = 'query ($skip: Boolean) { __typename @skip(if: $skip) }';
    const executor = jitExecutor(schema);
    for (const skip of [true, false, true]) {
      const jit = await runJit(executor, document, { skip });
      expect(jit).toEqual(await graphqlJs(document, { skip }));
      expect(jit).toEqual({ data: skip ? {} : { __typename: 'Query' } });
    }
  });

  it('refused variables get graphql-js’s errors, not graphql-jit’s, and no data', async () => {
    const executor = jitExecutor(schema);
    for (const variables of [
      { orderBy: { field: 'TYP' } },
      { orderBy: { field: 'TYPE', direction: 'DOWN' } },
      { filter: { services: [1, null] } },
      { first: 1.5, last: '2' },
    ]) {
      const jit = await runJit(executor, ExecDevicePageDocument, variables);
      expect(jit, JSON.stringify(variables)).toEqual(await graphqlJs(ExecDevicePageDocument, variables));
      expect(jit.data).toBeUndefined();
      expect(jit.errors!.length).toBeGreaterThan(0);
    }
  });

  it('one upstream failure shared by two traffic fields of a device: each is null with it, the device kept', async () => {
    const executor = jitExecutor(schema);
    // The device lookup takes the one upstream call allowed; both traffic fields then share the
    // loader's one refused page (same arguments, same key): one error object thrown twice.
    const variables = { id: '1', a: 2, b: 2 };
    const jit = await runJit(executor, ExecTrafficTwiceDocument, variables, { budget: 1 });
    expect(jit).toEqual(await graphqlJs(ExecTrafficTwiceDocument, variables, DEMO_ADMIN_KEY, undefined, 1));
    expect(jit.data).toEqual({ protectionDevice: { id: '1', a: null, b: null } });
    expect(errorsAsSeen(jit.errors)).toEqual([
      { message: expect.any(String), path: ['protectionDevice', 'a'], code: 'UPSTREAM_BUDGET_EXCEEDED' },
      { message: expect.any(String), path: ['protectionDevice', 'b'], code: 'UPSTREAM_BUDGET_EXCEEDED' },
    ]);
  });

  it('one upstream failure under two parents: each traffic field keeps its error, the parents kept', async () => {
    const executor = jitExecutor(schema);
    const jit = await runJit(executor, ExecTwoDevicesTrafficDocument, { id: '2' }, { budget: 1 });
    expect(jit).toEqual(await graphqlJs(ExecTwoDevicesTrafficDocument, { id: '2' }, DEMO_ADMIN_KEY, undefined, 1));
    expect(jit.data).toEqual({ x: { id: '2', traffic: null }, y: { id: '2', traffic: null } });
    expect(errorsAsSeen(jit.errors)).toEqual([
      { message: expect.any(String), path: ['x', 'traffic'], code: 'UPSTREAM_BUDGET_EXCEEDED' },
      { message: expect.any(String), path: ['y', 'traffic'], code: 'UPSTREAM_BUDGET_EXCEEDED' },
    ]);
  });

  it('a nullable variable sent as null where @skip needs a Boolean!: refused as graphql-js refuses it, never silently skipped', async () => {
    // `$skip: Boolean = false` passes validation in `if: Boolean!`; an explicit null is no value.
    const executor = jitExecutor(schema);
    expect(await runJit(executor, ExecSkipWithDefaultDocument, { skip: false })).toEqual(await graphqlJs(ExecSkipWithDefaultDocument, { skip: false }));
    const jit = await runJit(executor, ExecSkipWithDefaultDocument, { skip: null });
    expect(jit).toEqual(await graphqlJs(ExecSkipWithDefaultDocument, { skip: null }));
    expect(jit.data).toEqual({ protectionDevices: null });
    expect(errorsAsSeen(jit.errors)).toEqual([
      { message: 'Argument "if" of non-null type "Boolean!" must not be null.', path: ['protectionDevices'], code: undefined },
    ]);
  });
});

describe('the cache of compiled operations', () => {
  const operationOf = (text: string) => {
    const document = parse(text);
    return { document, operation: document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode };
  };

  it('counts the fields graphql-jit generates: each fragment spread expanded, inline fragments and nesting included', () => {
    const { document, operation } = operationOf(`
      query { a: protectionDevices(first: 1) { nodes { ...D ...D } } b: protectionDevices(first: 1) { ... on ProtectionDeviceConnection { nodes { ...D } } } }
      fragment D on ProtectionDevice { id organization { id name } ...E }
      fragment E on ProtectionDevice { email }
      fragment Unused on ProtectionDevice { id type email }`);
    // a: 1 + nodes (1 + 2 × D); b: 1 + nodes (1 + D); D: id, organization { id name }, email = 5.
    expect(fieldsToCompile(document, operation)).toBe(1 + 1 + 2 * 5 + 1 + 1 + 5);
  });

  it('keeps compiled operations within its memory budget, by their expanded size', () => {
    const page = operationOf('query { protectionDevices(first: 2) { nodes { id email organization { id name } } } }');
    const heavy = operationOf(`query { ${Array.from({ length: 30 }, (_, i) => `p${i}: protectionDevices(first: 1) { nodes { ...D ...D } }`).join(' ')} }
      fragment D on ProtectionDevice { id type email endpoint privateIp atbKey services organization { id name logo } }`);
    const pageBytes = compiledBytes(page.document, page.operation);
    const heavyBytes = compiledBytes(heavy.document, heavy.operation);
    // Thirty aliases of a page spreading a fragment twice weigh far more than their text suggests.
    expect(heavyBytes / pageBytes).toBeGreaterThan(30);
    expect(entryBytes('graphql-js', heavy.document, heavy.operation)).toBe(1);

    const cache = createCompiledCache({ cacheBytes: 2 * pageBytes + 1 });
    cache.set('a', 'graphql-js', { size: pageBytes });
    cache.set('b', 'graphql-js', { size: pageBytes });
    expect([...cache.keys()].sort()).toEqual(['a', 'b']);
    cache.set('c', 'graphql-js', { size: pageBytes });
    expect([...cache.keys()].sort()).toEqual(['b', 'c']);
    // Larger than the whole budget: not kept (it compiles again when asked), nothing evicted for it.
    cache.set('heavy', 'graphql-js', { size: heavyBytes });
    expect([...cache.keys()].sort()).toEqual(['b', 'c']);
  });
});
