// The custom and built-in scalars at the gateway's edge, over HTTP: a bad input value is refused
// with HTTP 400 before any upstream call, through variables (BAD_USER_INPUT) and inline in the
// document (GRAPHQL_VALIDATION_FAILED); output values are what the upstream holds, DateTime as
// ISO strings.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { getNamedType, isInputObjectType, isScalarType, isSpecifiedScalarType, print, type GraphQLArgument, type GraphQLInputField } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSchema } from '../../../src/gateway/domains/index.ts';
import { insertFramework, insertOrganization, insertWebProtectionRecord, type Evidence, type SecurityFramework, type WebProtectionRecord } from 'reference-service/testing';
import { postGraphQL, startStack, TEST_KEYS, type GraphQLResponse, type Stack } from '../../helpers/gateway.ts';
import { TEST_ORGANIZATIONS, v1Request } from '../../helpers/v1.ts';
import {
  CreateFrameworkDocument,
  FrameworkDocument,
  FrameworkIdsDocument,
  TrafficWindowIdsDocument,
  UpdateWebProtectionRecordDocument,
} from '../../generated/operations.ts';

let stack: Stack;
let recordId: number;
let frameworkId: number;

const ISO_MILLISECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const EVIDENCES: Evidence[] = [
  {
    files: ['/api/v1/documents/organizations/1/security-frameworks/1/documents/A.5.1/policy.pdf'],
    details: 'Policy approved.',
    datetime: '2026-10-01T08:30:00Z',
    completed: 1,
    residual_risk: 0.12,
    submitted_by: { user_id: '3f6c2a9e-8d41-4b7a-9c0e-5a1d2b3c4d5e', user_email: 'ciso@northwind.example' },
  },
  {
    files: [],
    details: 'Half-second precision.',
    datetime: '2026-10-02T09:15:30.5Z',
    completed: 0,
    residual_risk: 0.8,
    submitted_by: { user_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', user_email: 'auditor+q4@northwind.example' },
  },
  {
    files: ['/api/v1/documents/organizations/1/security-frameworks/1/documents/A.5.1/scan.json'],
    details: 'Milliseconds.',
    datetime: '2026-10-03T10:00:00.123Z',
    completed: 1,
    residual_risk: 0,
    submitted_by: { user_id: '00000000-0000-4000-8000-000000000000', user_email: 'ops@northwind.example' },
  },
];

const control = {
  controlId: 'C-1',
  type: 'control',
  title: 'A control',
  weight: 1,
  details: {},
  frequency: '0 9 * * 1',
  description: '',
  evidenceType: 'document',
};

/** Sends any body with a key; no response body may ever carry a key. */
async function post(body: { query: string; variables?: unknown }, key: string | null = TEST_KEYS.admin): Promise<GraphQLResponse<any>> {
  const response = await postGraphQL<any>(stack.gateway.url, body, key === null ? {} : { 'x-service-token': key });
  for (const known of Object.values(TEST_KEYS)) expect(response.text).not.toContain(known);
  return response;
}

/** A typed document with variables of the wrong types, as a careless client would send them. */
function withVariables(document: TypedDocumentNode<any, any>, variables: Record<string, unknown>) {
  return post({ query: print(document), variables });
}

/** The request was refused with `code` at HTTP 400, before any resolver and any upstream call. */
function expectRefused(response: GraphQLResponse<unknown>, code: string, label: string): void {
  expect(response.status, `${label}: ${response.text}`).toBe(400);
  expect(response.errors?.length, label).toBeGreaterThan(0);
  for (const error of response.errors!) expect(error.extensions?.code, label).toBe(code);
  expect(response.data, label).toBeUndefined();
  expect(stack.proxy.calls, label).toEqual([]);
}

beforeAll(async () => {
  stack = await startStack({ v1: { seed: 'none' }, key: TEST_KEYS.admin });
  recordId = insertWebProtectionRecord(stack.v1.db, {
    organizationId: 1,
    email: 'webops@northwind.example',
    fqdn: 'www.northwind.example',
    endpoint: '203.0.113.10',
    services: ['waf'],
    check: {
      stat: { fqdn: 1, proxy: 1, endpoint: 1, datetime: '2026-11-20T23:00:00Z' },
      status: 1,
      web_stat: [{ datetime: '2026-11-20T22:00:00.5Z', waf_protection: 99.5, total_managed_requests: 1200 }],
    },
  });
  frameworkId = insertFramework(stack.v1.db, 1, {
    title: 'Scalar outputs',
    security_frameworks: [
      {
        id: 'A.5.1',
        type: 'control',
        title: 'Policies',
        weight: 2.5,
        details: { owner: 'Security team', tags: ['policy'], nested: { depth: 1, none: null } },
        evidences: EVIDENCES,
        frequency: '0 9 1 * *',
        description: 'Policies are approved.',
        evidence_type: 'document',
      },
    ],
  });
});

afterAll(async () => {
  await stack?.close();
});

describe('a bad value through variables is BAD_USER_INPUT before any upstream call', () => {
  const record = (input: Record<string, unknown>) => [UpdateWebProtectionRecordDocument, { id: String(recordId), input }] as const;
  const framework = (override: Record<string, unknown>, title: unknown = 'Framework') =>
    [CreateFrameworkDocument, { organizationId: '1', input: { title, controls: [{ ...control, ...override }] } }] as const;
  const cases: [string, readonly [TypedDocumentNode<any, any>, Record<string, unknown>]][] = [
    ['EmailAddress "not-an-email"', record({ email: 'not-an-email' })],
    ['EmailAddress "two@@example.com"', record({ email: 'two@@example.com' })],
    ['EmailAddress 42', record({ email: 42 })],
    ['IPv4 "999.1.1.1"', record({ endpoint: '999.1.1.1' })],
    ['IPv4 "10.0.0"', record({ endpoint: '10.0.0' })],
    ['IPv4 "10.0.0.1.5"', record({ endpoint: '10.0.0.1.5' })],
    ['JSONObject [1, 2]', framework({ details: [1, 2] })],
    ['JSONObject "a string"', framework({ details: 'a string' })],
    ['JSONObject 5', framework({ details: 5 })],
    ['ID true', [FrameworkIdsDocument, { organizationId: true }]],
    ['ID 1.5', [FrameworkIdsDocument, { organizationId: 1.5 }]],
    ['ID {}', [FrameworkIdsDocument, { organizationId: {} }]],
    ['ID [1]', [FrameworkDocument, { organizationId: '1', id: [1] }]],
    ['Int "ten"', [FrameworkIdsDocument, { organizationId: '1', first: 'ten' }]],
    ['Int 1.5', [FrameworkIdsDocument, { organizationId: '1', first: 1.5 }]],
    ['Int 2^31', [FrameworkIdsDocument, { organizationId: '1', last: 2 ** 31 }]],
    ['Float "heavy"', framework({ weight: 'heavy' })],
    ['Float true', framework({ weight: true })],
    ['String 5', framework({}, 5)],
    ['String! null', framework({ frequency: null })],
    ['DateTime "yesterday"', [TrafficWindowIdsDocument, { deviceId: '1', filter: { from: 'yesterday' } }]],
    ['DateTime "2026-11-20 25:00"', [TrafficWindowIdsDocument, { deviceId: '1', filter: { to: '2026-11-20T25:00:00Z' } }]],
  ];
  for (const [label, [document, variables]] of cases) {
    it(label, async () => {
      stack.proxy.reset();
      expectRefused(await withVariables(document, variables), 'BAD_USER_INPUT', label);
    });
  }
});

describe('a bad value inline in the document is a validation error before any upstream call', () => {
  const record = (input: string) =>
    `mutation { updateWebProtectionRecord(id: "${recordId}", input: ${input}) { webProtectionRecord { id } } }`;
  const framework = (field: string) =>
    `mutation { createSecurityFramework(organizationId: "1", input: { title: "Framework", controls: [{ controlId: "C-1", type: "control", title: "t", weight: 1, frequency: "* * * * *", evidenceType: "document", ${field} }] }) { id } }`;
  const cases: [string, string][] = [
    ['EmailAddress "not-an-email"', record('{ email: "not-an-email" }')],
    ['EmailAddress "two@@example.com"', record('{ email: "two@@example.com" }')],
    ['EmailAddress 42', record('{ email: 42 }')],
    ['IPv4 "999.1.1.1"', record('{ endpoint: "999.1.1.1" }')],
    ['IPv4 "10.0.0"', record('{ endpoint: "10.0.0" }')],
    ['IPv4 "10.0.0.1.5"', record('{ endpoint: "10.0.0.1.5" }')],
    ['JSONObject [1, 2]', framework('details: [1, 2]')],
    ['JSONObject "a string"', framework('details: "a string"')],
    ['JSONObject 5', framework('details: 5')],
    ['ID true', '{ securityFrameworks(organizationId: true) { totalCount } }'],
    ['ID 1.5', '{ securityFrameworks(organizationId: 1.5) { totalCount } }'],
    ['Int "ten"', '{ securityFrameworks(organizationId: "1", first: "ten") { totalCount } }'],
    ['Int 1.5', '{ securityFrameworks(organizationId: "1", first: 1.5) { totalCount } }'],
    ['Float "heavy"', framework('description: "d"').replace('weight: 1', 'weight: "heavy"')],
    ['DateTime "yesterday"', '{ trafficLog(deviceId: "1", filter: { from: "yesterday" }) { totalCount } }'],
  ];
  for (const [label, query] of cases) {
    it(label, async () => {
      stack.proxy.reset();
      expectRefused(await post({ query }), 'GRAPHQL_VALIDATION_FAILED', label);
    });
  }
});

describe('the cases above', () => {
  it('cover every custom scalar a client can send (an argument, or a field of an input)', () => {
    const schema = buildSchema();
    const sent = new Set<string>();
    const seen = new Set<string>();
    const visit = (input: GraphQLArgument | GraphQLInputField) => {
      const type = getNamedType(input.type);
      if (isScalarType(type) && !isSpecifiedScalarType(type)) sent.add(type.name);
      if (isInputObjectType(type) && !seen.has(type.name)) {
        seen.add(type.name);
        Object.values(type.getFields()).forEach(visit);
      }
    };
    for (const root of [schema.getQueryType(), schema.getMutationType()]) {
      for (const field of Object.values(root!.getFields())) field.args.forEach(visit);
    }
    // A scalar added to an input (a DateTime filter, say) needs its cases in both lists above.
    expect([...sent].sort()).toEqual(['DateTime', 'EmailAddress', 'IPv4', 'JSONObject']);
  });
});

describe('IPv4 input is a dotted-quad address', () => {
  // graphql.md: an input of the wrong format is refused before any upstream call; the SDL's IPv4
  // is "an IPv4 address in dotted-quad notation". A network in CIDR form or an address with
  // leading zeros is neither (and v1 refuses both).
  for (const endpoint of ['10.0.0.1/24', '010.000.000.001']) {
    it(`refuses "${endpoint}" through variables (BAD_USER_INPUT) before any upstream call`, async () => {
      stack.proxy.reset();
      const response = await withVariables(UpdateWebProtectionRecordDocument, { id: String(recordId), input: { endpoint } });
      expectRefused(response, 'BAD_USER_INPUT', endpoint);
    });

    it(`refuses "${endpoint}" inline in the document (GRAPHQL_VALIDATION_FAILED) before any upstream call`, async () => {
      stack.proxy.reset();
      const response = await post({ query: `mutation { updateWebProtectionRecord(id: "${recordId}", input: { endpoint: "${endpoint}" }) { webProtectionRecord { id } } }` });
      expectRefused(response, 'GRAPHQL_VALIDATION_FAILED', endpoint);
    });
  }
});

describe('outputs', () => {
  it('DateTime values are ISO strings with milliseconds of the upstream’s instants; UUID and EmailAddress are the upstream’s', async () => {
    const held = (
      await v1Request(stack.v1, 'GET', '/api/v1/organizations/1/security-frameworks')
    ).json.data.find((f: SecurityFramework) => f.id === frameworkId) as SecurityFramework;
    const response = await post({ query: print(FrameworkDocument), variables: { organizationId: '1', id: String(frameworkId) } });
    expect(response.errors).toBeUndefined();
    const evidences = response.data.securityFramework.controls[0].evidences;
    expect(evidences.map((e: { datetime: string }) => e.datetime)).toEqual([
      '2026-10-01T08:30:00.000Z',
      '2026-10-02T09:15:30.500Z',
      '2026-10-03T10:00:00.123Z',
    ]);
    held.security_frameworks[0]!.evidences.forEach((evidence, i) => {
      expect(evidences[i].datetime).toMatch(ISO_MILLISECONDS);
      expect(evidences[i].datetime).toBe(new Date(evidence.datetime).toISOString());
      expect(evidences[i].submittedBy).toEqual({ userId: evidence.submitted_by.user_id, userEmail: evidence.submitted_by.user_email });
      expect(evidences[i].residualRisk).toBe(evidence.residual_risk);
    });
    // JSONObject comes back as stored, nulls and nesting included.
    expect(response.data.securityFramework.controls[0].details).toEqual(held.security_frameworks[0]!.details);
  });

  it('DateTime, EmailAddress, IPv4 and URL of a web protection record are the upstream’s values', async () => {
    const held = (await v1Request(stack.v1, 'PUT', `/api/v1/cloud-defender/${recordId}`, { body: {} })).json.data as WebProtectionRecord;
    const response = await post({ query: print(UpdateWebProtectionRecordDocument), variables: { id: String(recordId), input: {} } });
    expect(response.errors).toBeUndefined();
    const record = response.data.updateWebProtectionRecord.webProtectionRecord;
    expect(record.email).toBe(held.email);
    expect(record.endpoint).toBe(held.endpoint);
    expect(record.organization.logo).toBe(held.organization.logo);
    expect(record.organization.logo).toBe(TEST_ORGANIZATIONS[0]!.logo);
    expect(record.check.stat.datetime).toBe('2026-11-20T23:00:00.000Z');
    expect(record.check.webStat[0].datetime).toBe('2026-11-20T22:00:00.500Z');
    for (const value of [record.check.stat.datetime, record.check.webStat[0].datetime]) expect(value).toMatch(ISO_MILLISECONDS);
  });

  it('a stored e-mail, address or logo that is not valid comes back null (as the schema says), never as an internal error', async () => {
    // Stored directly: the v1 operations would refuse these values; another deployment may hold them.
    const organizationId = insertOrganization(stack.v1.db, { name: 'Legacy Org', logo: 'not a url' });
    const id = insertWebProtectionRecord(stack.v1.db, {
      organizationId,
      email: 'nobody',
      fqdn: 'legacy.example.org',
      endpoint: '300.1.1.1',
      services: [],
      check: { stat: { fqdn: 0, proxy: 0, endpoint: 0, datetime: '2026-11-20T23:00:00Z' }, status: 0, web_stat: [] },
    });
    const response = await post({ query: print(UpdateWebProtectionRecordDocument), variables: { id: String(id), input: {} } });
    const record = response.data?.updateWebProtectionRecord?.webProtectionRecord;
    expect(record, response.text).toMatchObject({
      id: String(id),
      fqdn: 'legacy.example.org',
      email: null,
      endpoint: null,
      organization: { id: String(organizationId), name: 'Legacy Org', logo: null },
    });
    expect((response.errors ?? []).map((error) => error.extensions?.code)).not.toContain('INTERNAL_SERVER_ERROR');
  });
});

describe('keys', () => {
  it('a request without a key is HTTP 401 UNAUTHENTICATED with no upstream call', async () => {
    stack.proxy.reset();
    const response = await post({ query: print(UpdateWebProtectionRecordDocument), variables: { id: String(recordId), input: {} } }, null);
    expect(response.status).toBe(401);
    expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    expect(stack.proxy.calls).toEqual([]);
  });
});
