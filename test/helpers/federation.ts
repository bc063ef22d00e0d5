// What the federation suites (subgraph.test.ts, supergraph.test.ts) share: v1's devices and
// frameworks as the admin key lists them, from which every entity's expected answer is made, a
// request as a router sends it to the gateway, and a device as an entity.
import { deviceFields, type V1Device, type V1Framework } from './oracle.ts';
import { DEMO_ADMIN_KEY, postGraphQL, type GraphQLResponse } from './gateway.ts';
import { v1Request, type TestV1 } from './v1.ts';

export interface V1Entities {
  /** Every device by its v1 id. */
  devices: Map<number, V1Device>;
  /** Every organization's frameworks, by the organization's v1 id. */
  frameworks: Map<number, V1Framework[]>;
}

/** Every device and every framework of the organizations that own one, read from v1 with the admin key. */
export async function v1Entities(v1: TestV1, pageSize = 500): Promise<V1Entities> {
  const devices = new Map<number, V1Device>();
  for (let offset = 0; ; offset += pageSize) {
    const page = await v1Request(v1, 'GET', `/api/v1/atb?limit=${pageSize}&offset=${offset}&order=id`, { token: DEMO_ADMIN_KEY });
    const { data, total } = page.json as { data: V1Device[]; total: number };
    for (const device of data) devices.set(device.id, device);
    if (data.length === 0 || offset + pageSize >= total) break;
  }
  const frameworks = new Map<number, V1Framework[]>();
  for (const organization of new Set([...devices.values()].map((device) => device.organization.id))) {
    const list = await v1Request(v1, 'GET', `/api/v1/organizations/${organization}/security-frameworks`, { token: DEMO_ADMIN_KEY });
    frameworks.set(organization, (list.json as { data: V1Framework[] }).data);
  }
  return { devices, frameworks };
}

/** A request as a router sends it: the client's key and the subgraph secret as headers (null: left out). */
export function routerRequest<T>(url: string, body: { query: string; variables?: Record<string, unknown> }, headers: { key: string | null; secret: string | null }): Promise<GraphQLResponse<T>> {
  return postGraphQL<T>(url, body, {
    ...(headers.key === null ? {} : { 'x-service-token': headers.key }),
    ...(headers.secret === null ? {} : { 'x-subgraph-secret': headers.secret }),
  });
}

/** A device as `_entities` answers it: the device's own fields and its organization. */
export function deviceEntity(device: V1Device) {
  return { __typename: 'ProtectionDevice', ...deviceFields(device) };
}
