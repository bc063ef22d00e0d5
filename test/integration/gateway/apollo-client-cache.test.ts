// Every id is unique within its type, so a normalized client cache never merges two objects that
// are not one. Run as a front end runs it: Apollo Client 4 with its default InMemoryCache, against
// the gateway over HTTP, reads organization 1's frameworks and then organization 2's, whose
// controls share client-chosen ids (ISO and CIS controls repeat across organizations) but carry
// each organization's own evidence. Read back from the cache, every control shows the evidence v1
// holds for its own organization. With the client-chosen id as Control.id (revision 1), the cache
// kept one `Control:A.5.1` for both, and organization 1's framework showed organization 2's evidence.
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ADMIN_KEY, startStack, type Stack } from '../../helpers/gateway.ts';
import * as oracle from '../../helpers/oracle.ts';
import { v1Request } from '../../helpers/v1.ts';

const FRAMEWORKS = gql`
  query OrganizationFrameworks($organizationId: ID!) {
    securityFrameworks(organizationId: $organizationId) {
      nodes {
        id
        title
        controls {
          id
          controlId
          evidences { files details datetime completed residualRisk submittedBy { userId userEmail } }
        }
      }
    }
  }
`;

interface Answer {
  securityFrameworks: {
    nodes: { id: string; title: string; controls: { id: string; controlId: string; evidences: unknown[] }[] }[];
  };
}

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

/** What v1 holds for an organization, as the oracle says the gateway must show it. */
async function heldBy(organizationId: string) {
  const response = await v1Request(stack.v1, 'GET', `/api/v1/organizations/${organizationId}/security-frameworks`);
  return (response.json.data as oracle.V1Framework[]).map((framework) => {
    const expected = oracle.securityFramework(framework);
    return {
      id: expected.id,
      title: expected.title,
      controls: expected.controls.map(({ id, controlId, evidences }) => ({ id, controlId, evidences })),
    };
  });
}

describe("Apollo Client's normalized cache over two organizations", () => {
  it('keeps each control with its own evidence', async () => {
    const client = new ApolloClient({
      link: new HttpLink({ uri: stack.gateway.url, headers: { 'x-service-token': DEMO_ADMIN_KEY } }),
      cache: new InMemoryCache(),
    });
    const [one, two] = [await heldBy('1'), await heldBy('2')];
    // The case only means something if the two organizations share client-chosen control ids
    // whose evidence differs.
    const idsOfOne = new Set(one.flatMap((framework) => framework.controls.map((control) => control.controlId)));
    const shared = two.flatMap((framework) => framework.controls).filter((control) => idsOfOne.has(control.controlId));
    expect(shared.length).toBeGreaterThan(0);
    expect(shared.some((control) => control.evidences.length > 0)).toBe(true);

    for (const organizationId of ['1', '2']) {
      const { error } = await client.query<Answer>({ query: FRAMEWORKS, variables: { organizationId } });
      expect(error).toBeUndefined();
    }
    // Apollo Client adds `__typename` to what it reads; the comparison is of the fields asked for.
    const withoutTypenames = <T>(value: T): T => JSON.parse(JSON.stringify(value), (key, item) => (key === '__typename' ? undefined : item));
    const cached = (organizationId: string) =>
      withoutTypenames(client.readQuery<Answer>({ query: FRAMEWORKS, variables: { organizationId } })!).securityFrameworks.nodes.map(({ id, title, controls }) => ({
        id,
        title,
        controls: controls.map(({ id: controlNode, controlId, evidences }) => ({ id: controlNode, controlId, evidences })),
      }));
    expect(cached('1')).toEqual(one);
    expect(cached('2')).toEqual(two);
    // Every control is its own cache entry.
    const controlIds = [...one, ...two].flatMap((framework) => framework.controls.map((control) => control.id));
    expect(new Set(controlIds).size).toBe(controlIds.length);
    client.stop();
  });
});
