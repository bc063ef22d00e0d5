// `extensions.cost` over HTTP (graphql.md, "Cost and throttling"): every response carries the
// operation's estimated cost, as the cost limit computes it, and the upstream calls the request
// made, compared here with the requests that reached the counting proxy in front of the
// reference service (each attempt of a retried call is one).
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse, print, type OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { estimateCost } from '../../../src/gateway/limits/index.ts';
import { buildSchema } from '../../../src/gateway/domains/index.ts';
import { postGraphQL, startStack, type GraphQLResponse, type Stack } from '../../helpers/gateway.ts';
import {
  CreateFrameworkDocument,
  DeviceDocument,
  DeviceFanOutDocument,
  DeviceIdsDocument,
  TrafficLogDocument,
} from '../../generated/operations.ts';

const SEED = { devices: 30, traffic: 1_500, hotTraffic: 0 };

let stack: Stack;
const schema = buildSchema();

beforeAll(async () => {
  // The circuit is this gateway's own: cases that fail calls on purpose must not open it for the next.
  stack = await startStack({ v1: { seedSizes: SEED }, gateway: { upstreamCircuitFailures: 0 } });
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

beforeEach(() => {
  stack.proxy.reset();
});

interface Cost {
  estimated: number | null;
  upstreamCalls: number;
}

/** The response's `extensions.cost`, checked to hold those two fields and nothing else. */
function costOf(response: GraphQLResponse<unknown>): Cost {
  const body = JSON.parse(response.text) as { extensions?: { cost?: Cost } };
  expect(Object.keys(body.extensions?.cost ?? {}).sort(), response.text).toEqual(['estimated', 'upstreamCalls']);
  return body.extensions!.cost!;
}

/** The cost limit's own estimate of a document with these variables. */
function estimateOf(query: string | TypedDocumentNode<any, any>, variables: Record<string, unknown> = {}): number {
  const document = typeof query === 'string' ? parse(query) : query;
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')!;
  const cost = estimateCost(schema, document, operation, variables);
  expect(cost, 'variables the document accepts').toBeDefined();
  return cost!;
}

/** `upstreamCalls` is what reached the upstream, and `estimated` the cost limit's estimate. */
function expectCost(response: GraphQLResponse<unknown>, estimated: number | null): Cost {
  const cost = costOf(response);
  expect(cost.upstreamCalls, stack.proxy.lines().join('\n')).toBe(stack.proxy.calls.length);
  expect(cost.estimated).toBe(estimated);
  return cost;
}

describe('an operation that runs', () => {
  it('a lookup: one call', async () => {
    const response = await stack.query(DeviceDocument, { id: '3' });
    expect(response.errors).toBeUndefined();
    expect(expectCost(response, estimateOf(DeviceDocument, { id: '3' })).upstreamCalls).toBe(1);
  });

  it('a lookup that needs no call (an id that cannot exist): none', async () => {
    const response = await stack.query(DeviceDocument, { id: 'abc' });
    expect(response.data).toEqual({ protectionDevice: null });
    expect(response.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(expectCost(response, estimateOf(DeviceDocument, { id: 'abc' })).upstreamCalls).toBe(0);
  });

  it('a page, and the same page backward from the end (a call for the total, then the page)', async () => {
    const forward = await stack.query(DeviceIdsDocument, { first: 5 });
    expect(forward.errors).toBeUndefined();
    expect(expectCost(forward, estimateOf(DeviceIdsDocument, { first: 5 })).upstreamCalls).toBe(1);

    stack.proxy.reset();
    const backward = await stack.query(DeviceIdsDocument, { last: 5 });
    expect(backward.errors).toBeUndefined();
    expect(expectCost(backward, estimateOf(DeviceIdsDocument, { last: 5 })).upstreamCalls).toBe(2);
  });

  it('a fan-out of 20 devices with their traffic: one call for the page, one per device', async () => {
    const variables = { first: 20, trafficFirst: 5 };
    const response = await stack.query(DeviceFanOutDocument, variables);
    expect(response.errors).toBeUndefined();
    // 1 + 20 × (1 + 1 + (1 + 5 × (1 + 1))): the page of 20, each device's id and a page of 5 ids.
    expect(estimateOf(DeviceFanOutDocument, variables)).toBe(1 + 20 * (1 + 1 + (1 + 5 * 2)));
    expect(expectCost(response, estimateOf(DeviceFanOutDocument, variables)).upstreamCalls).toBe(21);
  });

  it('a fan-out where one call fails: every attempt of it counts', async () => {
    stack.proxy.fail((call) => (call.path === '/api/v1/atb/7/traffic' ? 503 : undefined));
    const variables = { first: 20, trafficFirst: 5 };
    const response = await stack.query(DeviceFanOutDocument, variables);
    expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_UNAVAILABLE']);
    // Three attempts (UPSTREAM_RETRIES' default 2) of the failing call.
    expect(expectCost(response, estimateOf(DeviceFanOutDocument, variables)).upstreamCalls).toBe(21 + 2);
  });

  it('a mutation: the create, and the list call that reads the new framework back', async () => {
    const variables = {
      organizationId: '2',
      input: {
        title: 'Cost extension',
        controls: [{ controlId: 'C-1', type: 'control', title: 'A control', weight: 1, details: {}, frequency: '0 9 * * 1', description: '', evidenceType: 'document' }],
      },
    };
    const response = await stack.query(CreateFrameworkDocument, variables);
    expect(response.errors).toBeUndefined();
    expect(stack.proxy.calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      'POST /api/v1/V-Ciso/security-frameworks',
      'GET /api/v1/organizations/2/security-frameworks',
    ]);
    expectCost(response, estimateOf(CreateFrameworkDocument, variables));
  });

  it('an operation without a key: HTTP 401 before any work, so neither a call nor an estimate', async () => {
    const response = await stack.query(TrafficLogDocument, { deviceId: '3' }, { key: null });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    expect(Object.keys(JSON.parse(response.text))).toEqual(['errors']);
    expect(stack.proxy.calls).toEqual([]);
  });
});

describe('an operation refused before it runs: no call', () => {
  const send = (body: Record<string, unknown>) => postGraphQL<unknown>(stack.gateway.url, body, { 'x-service-token': 'demo-admin-key' });

  it('over the cost limit: the estimate it was refused for', async () => {
    const query = '{ protectionDevices(first: 100) { nodes { id traffic(first: 100) { nodes { id } } } } }';
    const response = await send({ query });
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    expect(expectCost(response, estimateOf(query)).estimated).toBe(response.errors?.[0]?.extensions?.cost);
  });

  it('a page size out of range: the estimate, as asked', async () => {
    const query = 'query ($n: Int) { protectionDevices(first: $n) { nodes { id } } }';
    const response = await send({ query, variables: { n: 1000 } });
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expectCost(response, 1 + 1000 * (1 + 1));
  });

  it('a request refused before Apollo reads it as GraphQL (not JSON, CSRF prevention): no extensions at all', async () => {
    const notJson = await postGraphQL<unknown>(stack.gateway.url, '{not json', { 'x-service-token': 'demo-admin-key' });
    const csrf = await fetch(stack.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-service-token': 'demo-admin-key' },
      body: '{"query":"{ __typename }"}',
    });
    for (const [status, text] of [[notJson.status, notJson.text], [csrf.status, await csrf.text()]] as const) {
      expect(status).toBe(400);
      expect(Object.keys(JSON.parse(text))).toEqual(['errors']);
    }
    expect(stack.proxy.calls).toEqual([]);
  });

  it('no estimate when execution refuses variables the estimate does not depend on, though the operation was estimated before', async () => {
    // The estimate of a repeated operation is looked up by its Int and Boolean variables alone;
    // an id of the wrong type is found by execution, and the answer then has no estimate either.
    const valid = await send({ query: print(DeviceDocument), variables: { id: '3' } });
    expectCost(valid, estimateOf(DeviceDocument, { id: '3' }));
    stack.proxy.calls.length = 0;
    const refused = await send({ query: print(DeviceDocument), variables: { id: { not: 'an id' } } });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expectCost(refused, null);
    expect(stack.proxy.calls).toEqual([]);
  });

  it('no estimate when the operation cannot be read: a parse error, a validation error, variables of the wrong type, no query', async () => {
    for (const body of [
      { query: '{ protectionDevices(first: 5) { nodes { id }' },
      { query: '{ protectionDevices(first: 5) { nodes { idd } } }' },
      { query: print(DeviceIdsDocument), variables: { first: 'five' } },
      { query: '' },
    ]) {
      const response = await send(body);
      expect(response.status, response.text).toBe(400);
      expectCost(response, null);
      expect(stack.proxy.calls).toEqual([]);
    }
  });
});
