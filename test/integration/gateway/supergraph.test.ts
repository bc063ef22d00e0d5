// The gateway in a supergraph, as a company runs one: its `_service` SDL composed with a second
// subgraph written here (an asset inventory that adds `owner` to devices and `reviewedBy` to
// frameworks, and refers to both from its own assets) by Apollo's and The Guild's composition,
// then a real router (Apollo's @apollo/gateway as the gateway of an Apollo Server, on port 0)
// answering queries across both subgraphs with the client's key and the subgraph secret forwarded
// per request. Every value is compared field by field with the v1 service over REST. Hive Gateway
// (@graphql-hive/gateway) is not among this project's dependencies: Apollo's router stands for both.
import type { AddressInfo } from 'node:net';
import { composeServices as composeWithApollo } from '@apollo/composition';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { composeServices as composeWithTheGuild, compositionHasErrors } from '@theguild/federation-composition';
import { Kind, parse, printSchema } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_ADMIN_KEY, postGraphQL, startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';
import { routerRequest, v1Entities, type V1Entities } from '../../helpers/federation.ts';
import { deviceFields } from '../../helpers/oracle.ts';

const SECRET = 'supergraph-secret-91f0';
const SEED = { devices: 40, traffic: 20, hotTraffic: 0 };

/** The inventory subgraph: its own assets, and what it knows of the security subgraph's entities. */
const INVENTORY_SDL = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key"])

  type Query {
    "Every asset of the inventory."
    assets: [Asset!]!
  }

  "A piece of equipment the inventory tracks."
  type Asset @key(fields: "serial") {
    serial: ID!
    location: String!
    "The protection device installed on the asset, if any."
    device: ProtectionDevice
    "The framework the asset is audited under, if any."
    framework: SecurityFramework
  }

  type ProtectionDevice @key(fields: "id") {
    id: ID!
    "Who in the company answers for the device."
    owner: String!
  }

  type SecurityFramework @key(fields: "organizationId id") {
    organizationId: ID!
    id: ID!
    "Who last reviewed the framework."
    reviewedBy: String!
  }
`;

interface Asset {
  serial: string;
  location: string;
  deviceId: string | null;
  framework: { organizationId: string; id: string } | null;
}

const ownerOf = (deviceId: string) => `owner-${deviceId}@example.com`;
const reviewerOf = (organizationId: string, id: string) => `reviewer-${organizationId}-${id}@example.com`;

let stack: Stack;
let inventory: { url: string; stop(): Promise<void>; entityCalls: number };
let router: { url: string; stop(): Promise<void> };
let assets: Asset[];
/** The gateway's SDL as the router's tooling reads it, once. */
let sdl: string;
/** Every device and every organization's frameworks, as v1 lists them to the admin key. */
let devices: V1Entities['devices'];
let frameworks: V1Entities['frameworks'];

async function startInventory(): Promise<typeof inventory> {
  const state = { entityCalls: 0 };
  const schema = buildSubgraphSchema({
    typeDefs: parse(INVENTORY_SDL),
    resolvers: {
      Query: { assets: () => assets },
      Asset: {
        device: (asset: Asset) => (asset.deviceId === null ? null : { __typename: 'ProtectionDevice', id: asset.deviceId }),
        framework: (asset: Asset) => asset.framework && { __typename: 'SecurityFramework', ...asset.framework },
      },
      ProtectionDevice: {
        __resolveReference: (reference: { id: string }) => {
          state.entityCalls += 1;
          return { id: reference.id };
        },
        owner: (device: { id: string }) => ownerOf(device.id),
      },
      SecurityFramework: {
        reviewedBy: (framework: { organizationId: string; id: string }) => reviewerOf(framework.organizationId, framework.id),
      },
    } as never,
  });
  const server = new ApolloServer({ schema });
  const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
  return {
    url,
    stop: () => server.stop(),
    get entityCalls() {
      return state.entityCalls;
    },
    set entityCalls(value: number) {
      state.entityCalls = value;
    },
  };
}

/** The gateway's SDL as the router's tooling reads it: `_service { sdl }`, with the secret and a credential (every request needs one). */
async function securitySdl(): Promise<string> {
  const response = await routerRequest<{ _service: { sdl: string } }>(stack.gateway.url, { query: '{ _service { sdl } }' }, { key: TEST_KEYS.admin, secret: SECRET });
  expect(response.status, response.text).toBe(200);
  return response.data!._service.sdl;
}

function services(securityTypeDefs: string) {
  return [
    { name: 'security', url: stack.gateway.url, typeDefs: parse(securityTypeDefs) },
    { name: 'inventory', url: inventory.url, typeDefs: parse(INVENTORY_SDL) },
  ];
}

/** A router (Apollo's gateway in an Apollo Server) over the composed supergraph, forwarding the client's credentials and the secret. */
async function startRouter(supergraphSdl: string): Promise<typeof router> {
  const gateway = new ApolloGateway({
    supergraphSdl,
    buildService: ({ name, url }) =>
      new RemoteGraphQLDataSource<{ credentials: Record<string, string> }>({
        url,
        willSendRequest({ request, context }) {
          const credentials: Record<string, string> = context.credentials ?? {};
          for (const [header, value] of Object.entries(credentials)) request.http?.headers.set(header, value);
          if (name === 'security') request.http?.headers.set('x-subgraph-secret', SECRET);
        },
      }),
  });
  const server = new ApolloServer<{ credentials: Record<string, string> }>({ gateway });
  const { url } = await startStandaloneServer(server, {
    listen: { port: 0, host: '127.0.0.1' },
    context: async ({ req }) => {
      const credentials: Record<string, string> = {};
      for (const header of ['x-service-token', 'authorization']) {
        const value = req.headers[header];
        if (typeof value === 'string') credentials[header] = value;
      }
      return { credentials };
    },
  });
  return { url, stop: () => server.stop() };
}

beforeAll(async () => {
  stack = await startStack({ v1: { seedSizes: SEED }, gateway: { subgraph: { enabled: true, secret: SECRET } } });
  ({ devices, frameworks } = await v1Entities(stack.v1));
  expect(devices.size).toBe(SEED.devices);
  const deviceIds = [...devices.keys()].map(String);
  const owned = [...frameworks.entries()].flatMap(([organizationId, list]) => list.map((framework) => ({ organizationId: String(organizationId), id: String(framework.id) })));
  expect(owned.length).toBeGreaterThan(2);
  assets = [
    ...deviceIds.slice(0, 6).map((deviceId, i) => ({ serial: `A-${i}`, location: `rack ${i}`, deviceId, framework: owned[i % owned.length]! })),
    // A device and a framework the security subgraph does not know: null there.
    { serial: 'A-ghost', location: 'basement', deviceId: '987654', framework: { organizationId: '1', id: '987654' } },
    { serial: 'A-bare', location: 'lobby', deviceId: null, framework: null },
  ];
  inventory = await startInventory();
  sdl = await securitySdl();
}, 60_000);

afterAll(async () => {
  await router?.stop();
  await inventory?.stop();
  await stack?.close();
});

beforeEach(() => {
  stack.proxy.reset();
  inventory.entityCalls = 0;
});

describe('composition', () => {
  it("Apollo's composition composes the gateway's SDL with another subgraph: no errors, no hints", async () => {
    const result = composeWithApollo(services(sdl));
    expect(result.errors?.map((error) => error.message)).toBeUndefined();
    expect(result.hints?.map((hint) => `${hint.definition.code}: ${hint.message}`)).toEqual([]);
    expect(result.supergraphSdl).toContain('join__type(graph: SECURITY, key: "organizationId id")');
  });

  it('leaves the scopes out of the subgraph SDL: the gateway checks them itself, and any router loads the supergraph', async () => {
    // No field carries the directive, under its imported name or the spec's namespaced one (the
    // library prints the spec's definitions whatever the subgraph uses).
    const uses = sdl.split('\n').filter((line) => /@(federation__)?requiresScopes\(/.test(line) && !line.startsWith('directive '));
    expect(uses).toEqual([]);
    const result = composeWithApollo(services(sdl));
    expect(result.supergraphSdl).not.toMatch(/@requiresScopes\(|directive @requiresScopes|specs.apollo.dev\/requiresScopes/);
  });

  it("The Guild's composition composes them too, with the same public schema as Apollo's", async () => {
    const guild = composeWithTheGuild(services(sdl));
    expect(compositionHasErrors(guild) ? guild.errors.map((error) => error.message) : []).toEqual([]);
    const apollo = composeWithApollo(services(sdl));
    const fieldsOf = (schemaSdl: string, type: string) => {
      const definition = parse(schemaSdl).definitions.find((d) => d.kind === Kind.OBJECT_TYPE_DEFINITION && d.name.value === type);
      return definition?.kind === Kind.OBJECT_TYPE_DEFINITION ? (definition.fields ?? []).map((field) => field.name.value).sort() : [];
    };
    const apolloPublic = printSchema(apollo.schema!.toAPISchema().toGraphQLJSSchema());
    for (const type of ['ProtectionDevice', 'SecurityFramework', 'Organization', 'Query', 'Asset']) {
      expect(fieldsOf(guild.publicSdl!, type), type).toEqual(fieldsOf(apolloPublic, type));
    }
    expect(fieldsOf(guild.publicSdl!, 'ProtectionDevice')).toContain('owner');
  });
});

describe('a router in front of both subgraphs', () => {
  beforeAll(async () => {
    const composed = composeWithApollo(services(sdl));
    router = await startRouter(composed.supergraphSdl!);
  }, 60_000);

  const query = (document: string, key: string | null) => postGraphQL<any>(router.url, { query: document }, key === null ? {} : { 'x-service-token': key });

  it("answers the gateway's devices with the inventory's owners, every value as v1 has it", async () => {
    const response = await query(
      `{ protectionDevices(first: 8) { totalCount nodes { id deviceId type email endpoint privateIp atbKey services organization { id name logo } owner } } }`,
      DEMO_ADMIN_KEY,
    );
    expect(response.errors, response.text).toBeUndefined();
    const nodes = response.data.protectionDevices.nodes as Record<string, unknown>[];
    expect(response.data.protectionDevices.totalCount).toBe(SEED.devices);
    expect(nodes).toHaveLength(8);
    const expected = [...devices.values()].slice(0, 8).map((device) => ({ ...deviceFields(device), owner: ownerOf(String(device.id)) }));
    expect(nodes).toEqual(expected);
    // The inventory resolved the 8 owners from their representations; the gateway made its one page call.
    expect(inventory.entityCalls).toBe(8);
    expect(stack.proxy.lines()).toHaveLength(1);
  });

  it("answers the inventory's assets with the gateway's devices and frameworks, through _entities, unknown ones null", async () => {
    const response = await query(
      `{ assets { serial location
          device { id deviceId type email services organization { id name } owner }
          framework { organizationId id title reviewedBy controls { controlId title weight } } } }`,
      DEMO_ADMIN_KEY,
    );
    expect(response.errors, response.text).toBeUndefined();
    const expected = assets.map((asset) => {
      const device = asset.deviceId === null ? undefined : devices.get(Number(asset.deviceId));
      const framework = asset.framework && frameworks.get(Number(asset.framework.organizationId))?.find((candidate) => String(candidate.id) === asset.framework!.id);
      return {
        serial: asset.serial,
        location: asset.location,
        device: device
          ? {
              id: String(device.id),
              deviceId: device.device_id,
              type: device.type,
              email: device.email,
              services: device.services,
              organization: { id: String(device.organization.id), name: device.organization.name },
              owner: ownerOf(String(device.id)),
            }
          : null,
        framework: framework
          ? {
              organizationId: asset.framework!.organizationId,
              id: String(framework.id),
              title: framework.title,
              reviewedBy: reviewerOf(asset.framework!.organizationId, String(framework.id)),
              controls: framework.security_frameworks.map((control) => ({ controlId: control.id, title: control.title, weight: control.weight })),
            }
          : null,
      };
    });
    expect(response.data.assets).toEqual(expected);
    // Devices: one search of the id-ordered list, pages of one; frameworks: one list per organization.
    const calls = stack.proxy.lines();
    const frameworkLists = calls.filter((line) => line.includes('/security-frameworks'));
    const organizations = new Set(assets.flatMap((asset) => (asset.framework ? [asset.framework.organizationId] : [])));
    expect(frameworkLists).toHaveLength(organizations.size);
    expect(calls.filter((line) => !line.includes('/security-frameworks')).every((line) => /^GET \/api\/v1\/atb\?/.test(line))).toBe(true);
  });

  it("forwards the client's key: an organization's key sees its own devices and null for another organization's", async () => {
    const response = await query(`{ assets { serial device { id organization { id } } } }`, TEST_KEYS.org1);
    expect(response.errors, response.text).toBeUndefined();
    expect(response.data.assets).toEqual(
      assets.map((asset) => {
        const device = asset.deviceId === null ? undefined : devices.get(Number(asset.deviceId));
        return { serial: asset.serial, device: device && device.organization.id === 1 ? { id: String(device.id), organization: { id: '1' } } : null };
      }),
    );
    // Every call the gateway made carried the key the client sent to the router.
    expect(stack.proxy.calls.length).toBeGreaterThan(0);
    for (const call of stack.proxy.calls) expect(call.headers['x-service-token']).toBe(TEST_KEYS.org1);
  });

  it('forwards Authorization: Bearer as well, and the gateway reads the key from it', async () => {
    const response = await postGraphQL<any>(router.url, { query: '{ protectionDevices(first: 50) { totalCount nodes { organization { id } } } }' }, { authorization: `Bearer ${TEST_KEYS.org2}` });
    expect(response.errors, response.text).toBeUndefined();
    const own = [...devices.values()].filter((device) => device.organization.id === 2);
    expect(response.data.protectionDevices.totalCount).toBe(own.length);
    for (const node of response.data.protectionDevices.nodes) expect(node.organization.id).toBe('2');
    for (const call of stack.proxy.calls) expect(call.headers['x-service-token']).toBe(TEST_KEYS.org2);
  });

  it('without a key, the gateway refuses as it refuses any client: UNAUTHENTICATED, no upstream call', async () => {
    const response = await query(`{ protectionDevices(first: 1) { totalCount } }`, null);
    expect(response.data?.protectionDevices ?? null).toBeNull();
    expect(response.errors?.map((error: { extensions?: { code?: string } }) => error.extensions?.code)).toContain('UNAUTHENTICATED');
    expect(stack.proxy.calls).toHaveLength(0);
  });
});
