// Errors speak GraphQL: v1 names a faulty input by its query parameter, path parameter or body
// path; the gateway's message names the argument or input field the client wrote (and
// `extensions.field` gives it), once, without saying the same thing twice. `extensions.upstream`
// keeps v1's own words. Each case goes through the real reference service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postGraphQL, startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';

let stack: Stack;

async function errorOf(query: string, key: string = TEST_KEYS.admin) {
  const response = await postGraphQL<unknown>(stack.gateway.url, { query }, { 'x-service-token': key });
  expect(response.errors, response.text).toHaveLength(1);
  return response.errors![0]!;
}

beforeAll(async () => {
  stack = await startStack({ key: TEST_KEYS.admin });
});

afterAll(async () => {
  await stack?.close();
});

describe('error messages in GraphQL words', () => {
  it("names a framework control's field by its input path", async () => {
    const error = await errorOf(
      'mutation { createSecurityFramework(organizationId: "1", input: { title: "T", controls: [{ controlId: "A.1", type: "t", title: "t", weight: -1, frequency: "0 0 * * *", evidenceType: "doc" }] }) { id } }',
    );
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    expect(error.message).toBe('Invalid input: input.controls[0].weight must be a finite number of at least 0.');
    expect(error.extensions?.field).toBe('input.controls[0].weight');
    expect(error.extensions?.upstream.messages[0].field).toBe('security_frameworks.0.weight');
  });

  it('counts the other problems in the message, and lists every one by its GraphQL path in extensions.problems', async () => {
    const error = await errorOf(
      'mutation { createSecurityFramework(organizationId: "1", input: { title: "", controls: [{ controlId: "", type: "t", title: "t", weight: 1, frequency: "0 0 * * *", evidenceType: "doc" }, { controlId: "B.2", type: "t", title: "t", weight: -3, frequency: "never", evidenceType: "doc" }] }) { id } }',
    );
    const problems = error.extensions?.problems as { field?: string; message: string }[];
    expect(error.message).toBe(`Invalid input: input.title must not be empty. (and ${problems.length - 1} more in extensions.problems)`);
    expect(problems.map((problem) => problem.field)).toEqual(['input.title', 'input.controls[0].controlId', 'input.controls[1].weight', 'input.controls[1].frequency']);
    for (const problem of problems) {
      expect(problem.message.startsWith(problem.field!), problem.message).toBe(true);
      expect(problem.message).not.toMatch(/security_frameworks/);
    }
    expect(error.extensions?.upstream.messages.map((m: { field: string }) => m.field)).toEqual(['title', 'security_frameworks.0.id', 'security_frameworks.1.weight', 'security_frameworks.1.frequency']);
  });

  it('calls a query parameter by its argument', async () => {
    const error = await errorOf('mutation { createSecurityFramework(input: { title: "T", controls: [] }) { id } }');
    expect(error.message).toBe('Invalid input: An admin key must name the organization with the argument organizationId.');
    expect(error.extensions?.field).toBe('organizationId');
  });

  it("names a web protection record's services by their input path", async () => {
    const error = await errorOf('mutation { updateWebProtectionRecord(id: "1", input: { services: ["waf", "nope"] }) { webProtectionRecord { id } } }');
    expect(error.message).toBe('Invalid input: input.services[1] "nope" is not one of waf, ddos, bot_protection, rate_limiting, api_protection, cdn.');
    expect(error.extensions?.field).toBe('input.services[1]');
  });

  it('says a refusal once', async () => {
    const error = await errorOf('{ securityFrameworks(organizationId: "2") { totalCount } }', TEST_KEYS.org1);
    expect(error.extensions?.code).toBe('FORBIDDEN');
    expect(error.message).toBe('Forbidden: This key may not act on organization 2.');
  });
});
