// GraphQL over HTTP conformance: graphql-http's server audits run against the gateway over real
// HTTP. Every MUST passes. The SHOULD audits that fail, and why:
//
// - 572B "SHOULD use 200 status code on document parsing failure when accepting application/json"
// - FDE2 "SHOULD use 200 status code on document validation failure when accepting application/json"
// - 7B9B "SHOULD use a status code of 200 on variable coercion failure when accepting application/json"
//   Apollo Server answers a request that fails before execution with 400 whatever the client
//   accepts; the spec asks for 200 only under the legacy `application/json`, so that old clients
//   read the body. The gateway keeps Apollo's 400: Apollo Client, Sandbox and codegen read a 400's
//   GraphQL body, proxies and the gateway's metrics see the failure, and the query-limit refusals
//   (depth, cost, tokens; see limits.test.ts) answer the same status under both media types.
//   Under `application/graphql-response+json` the 400 is what the spec asks for (audits 556A, 74FF,
//   86EE pass).
//
// MAY audits that are not met (notices, not failures): 5A70, D6D5, 6A70, the GET requests the
// audit sends without a preflight header. CSRF prevention refuses a GET that a browser could send
// cross-site without a preflight (no `Apollo-Require-Preflight`/`X-Apollo-Operation-Name` and no
// non-simple content type); http-server.test.ts shows GET queries work with the header.
import { auditServer } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';

const DOCUMENTED_SHOULD_FAILURES = ['572B', 'FDE2', '7B9B'];
const DOCUMENTED_MAY_NOTICES = ['5A70', '6A70', 'D6D5'];

let stack: Stack;
let results: Awaited<ReturnType<typeof auditServer>>;

beforeAll(async () => {
  stack = await startStack({ v1: { seed: 'none' }, key: null });
  // Every request with a key, as a client sends it: without one the gateway answers 401 before
  // reading the request, which is not what these audits are about.
  results = await auditServer({
    url: stack.gateway.url,
    fetchFn: (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      headers.set('x-service-token', TEST_KEYS.admin);
      return fetch(input, { ...init, headers });
    },
  });
});

afterAll(async () => {
  await stack?.close();
});

function failing(level: 'MUST' | 'SHOULD' | 'MAY') {
  return results
    .filter((result) => result.name.startsWith(`${level} `) && result.status !== 'ok')
    .map((result) => ({ id: result.id, name: result.name, reason: 'reason' in result ? result.reason : '' }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

describe('graphql-http server audit', () => {
  it('runs the whole audit', () => {
    // 60+ audits across the three levels; an empty run would make the checks below vacuous.
    expect(results.length).toBeGreaterThan(50);
    expect(results.filter((result) => result.name.startsWith('MUST ')).length).toBeGreaterThan(10);
  });

  it('passes every MUST audit', () => {
    expect(failing('MUST')).toEqual([]);
  });

  it('fails only the documented SHOULD audits, for the documented reason', () => {
    const should = failing('SHOULD');
    expect(should.map((result) => result.id)).toEqual([...DOCUMENTED_SHOULD_FAILURES].sort());
    for (const result of should) expect(result.reason).toBe('Response status code is not 200');
  });

  it('misses only the documented MAY audits (GET without a CSRF preflight header)', () => {
    expect(failing('MAY').map((result) => result.id)).toEqual(DOCUMENTED_MAY_NOTICES);
  });

  it('made no upstream call (the audit only asks for __typename)', () => {
    expect(stack.proxy.calls).toEqual([]);
  });
});
