// A front end's operations, typed by the client preset: `graphql()` returns a TypedDocumentNode,
// so the result and the variables of each operation are checked by the compiler.
import { graphql } from './gql';
import type { ResultOf, VariablesOf } from '@graphql-typed-document-node/core';

export const DevicesPage = graphql(`
  query DevicesPage($first: Int, $after: String) {
    protectionDevices(first: $first, after: $after) {
      totalCount
      pageInfo { hasNextPage endCursor }
      nodes {
        id
        deviceId
        endpoint
        services
        organization { name }
        traffic(first: 1) { nodes { id dateTime logMessage extra } }
      }
    }
  }
`);

export type DevicesPageResult = ResultOf<typeof DevicesPage>;
export type DevicesPageVariables = VariablesOf<typeof DevicesPage>;

/** What a dashboard shows of a device's newest entry: scalars are plain strings, JSON an object. */
export function newestEntry(result: DevicesPageResult): { when: string; address: string | null; extra: Record<string, unknown> } | undefined {
  const device = result.protectionDevices?.nodes[0];
  const entry = device?.traffic?.nodes[0];
  if (!device || !entry) return undefined;
  // @ts-expect-error DateTime is a string in JSON, not a number: the scalars map says so.
  const wrong: number = entry.dateTime;
  void wrong;
  return { when: entry.dateTime, address: device.endpoint ?? null, extra: entry.extra };
}

/** The same operation over plain fetch, from Node or a browser. */
export async function fetchDevices(url: string, key: string, variables: DevicesPageVariables, query: string): Promise<DevicesPageResult> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': key },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: DevicesPageResult; errors?: { message: string }[] };
  if (!body.data) throw new Error(body.errors?.[0]?.message ?? `HTTP ${response.status}`);
  return body.data;
}
