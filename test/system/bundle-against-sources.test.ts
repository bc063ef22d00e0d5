// The production bundle against the sources it is made of. Production runs `node dist/main.js`,
// the esbuild bundle scripts/build.mjs makes; nearly every other suite runs the sources. A bundle
// can differ from them in ways no source test sees: a file it did not carry along (the MCP
// operations, a manifest read at start), a dynamic import it resolved differently, a second copy
// of graphql that breaks `instanceof GraphQLError`, a dependency's CommonJS quirk. So the same
// cases go to two gateways with the same settings, one started from each form
// (test/helpers/gateway-process.ts), and their answers must be the same bytes.
//
// Each gateway has its own reference service, seeded alike (the demo data is fixed, up to its
// last day), and the cases run in order, each on the bundle's side and then on the sources':
// mutations leave both services in the same state, so every later answer still compares. Every
// surface: queries of each domain (windows with from/to included), mutations, errors (bad input,
// unknown ids, the cost, depth and alias limits, introspection, the transport's refusals),
// persisted queries, GET, trusted documents, subscriptions over graphql-ws, export downloads,
// MCP, the subgraph's SDL and the operator endpoints.
//
// What is normalised before the comparison, and why (nothing else is):
// - the gateway's own origin (`http://127.0.0.1:<port>`): each listens on a port of its own;
// - an export link's token (`/exports/<token>`): random per link, by design (it is the credential);
// - date-times within an hour of the run (`expiresAt`, a write's own stamp): each side stamps its
//   own clock; the seeded data's date-times, days older, are compared as they are;
// - /healthz and /version: their keys only, since a bundle names its commit and build time and
//   the sources have none (src/gateway/observability/build-info.ts);
// - /metrics: the metric names only, since values count each process's own requests and timings.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getIntrospectionQuery, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateFrameworkDocument,
  DeleteFrameworkDocument,
  DeleteWebProtectionRecordDocument,
  DeviceDocument,
  DevicesDocument,
  DeviceWithTrafficDocument,
  ExecEvidenceDocument,
  FrameworkDocument,
  FrameworkNodesDocument,
  TrafficLogDocument,
  TrafficWindowIdsDocument,
  UpdateFrameworkDocument,
  UpdateWebProtectionRecordDocument,
  WebProtectionRecordByIdDocument,
  WebProtectionRecordPageDocument,
} from '../generated/operations.ts';
import { DEMO_ADMIN_KEY, TEST_KEYS } from '../helpers/gateway.ts';
import { startGatewayProcess, type GatewayForm, type GatewayProcess } from '../helpers/gateway-process.ts';
import { TAIL_SUBSCRIPTION, tailClient, until } from '../helpers/subscriptions.ts';
import { startTestV1, type TestV1 } from '../helpers/v1.ts';

/** The demo data's devices and traffic, small enough to seed in a moment, large enough for paging. */
const SEED_SIZES = { devices: 12, traffic: 400, hotTraffic: 0 };
const ORGANIZATION_KEY = TEST_KEYS.org1;

const TRUSTED = 'query TrustedDevices { protectionDevices(first: 3) { totalCount nodes { id deviceId } } }';
const INTROSPECTION = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true });
const SUBGRAPH_SDL = 'query Sdl { _service { sdl } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const documentId = (text: string) => `sha256:${sha256(text)}`;
const manifestDir = mkdtempSync(join(tmpdir(), 'bundle-sources-'));
const MANIFEST = join(manifestDir, 'persisted-documents.json');
writeFileSync(MANIFEST, JSON.stringify(Object.fromEntries([TRUSTED, INTROSPECTION, SUBGRAPH_SDL, TAIL_SUBSCRIPTION].map((text) => [documentId(text), text]))));

/**
 * Two gateways a side, with the same settings on both sides: `main` as deployed (production: no
 * introspection, no suggestions) with MCP and tight limits so that the limits' errors are cheap
 * to reach; `strict` enforcing trusted documents, with introspection on (the whole schema, every
 * description, compared) and the subgraph's fields.
 */
const MAIN = { NODE_ENV: 'production', LOG_LEVEL: 'warn', MCP: '1', MAX_DEPTH: '6', MAX_ALIASES: '8', MAX_COST: '5000', BODY_LIMIT_BYTES: '65536' };
const STRICT = { NODE_ENV: 'production', LOG_LEVEL: 'warn', INTROSPECTION: 'true', SUBGRAPH: '1', TRUSTED_DOCUMENTS: MANIFEST, TRUSTED_DOCUMENTS_MODE: 'enforce' };

interface Side {
  form: GatewayForm;
  v1: TestV1;
  main: GatewayProcess;
  strict: GatewayProcess;
}

/** What is compared of one case: every answer it got, each reduced to what must be the same. */
type Answer = { status: number; type: string | null; body: string } | unknown;

const sides: Side[] = [];

async function startSide(form: GatewayForm): Promise<Side> {
  const v1 = await startTestV1({ seed: 'demo', seedSizes: SEED_SIZES });
  const [main, strict] = await Promise.all([
    startGatewayProcess(form, { ...MAIN, UPSTREAM_URL: v1.url }),
    startGatewayProcess(form, { ...STRICT, UPSTREAM_URL: v1.url }),
  ]);
  const side = { form, v1, main, strict };
  sides.push(side);
  return side;
}

beforeAll(async () => {
  await Promise.all([startSide('bundle'), startSide('sources')]);
}, 120_000);

afterAll(async () => {
  await Promise.all(sides.flatMap((side) => [side.main.stop(), side.strict.stop()]));
  await Promise.all(sides.map((side) => side.v1.close()));
  rmSync(manifestDir, { recursive: true, force: true });
});

// --- Normalising -------------------------------------------------------------------------------------

const HOUR_MS = 3_600_000;

function normalise(text: string, gateway: GatewayProcess): string {
  const origin = new URL(gateway.url).origin;
  return text
    .replaceAll(origin, '<gateway>')
    .replace(/\/exports\/[A-Za-z0-9_-]+/g, '/exports/<token>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, (stamp) => (Math.abs(Date.parse(stamp) - Date.now()) < HOUR_MS ? '<now>' : stamp));
}

async function answerOf(response: Response, gateway: GatewayProcess): Promise<Answer> {
  return { status: response.status, type: response.headers.get('content-type'), body: normalise(await response.text(), gateway) };
}

// --- Sending ---------------------------------------------------------------------------------------

type Which = 'main' | 'strict';

function post(gateway: GatewayProcess, body: unknown, key: string | null = DEMO_ADMIN_KEY, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...(key === null ? {} : { 'x-service-token': key }), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The `data` of an answer that must have succeeded, to take ids from for the next step. */
async function dataOf(response: Response): Promise<any> {
  const json = (await response.clone().json()) as { data?: unknown; errors?: unknown };
  if (json.errors !== undefined || json.data === undefined) throw new Error(`expected data, got ${JSON.stringify(json)}`);
  return json.data;
}

/** The id of organization 1's first (or last) framework, read through the main gateway. */
async function frameworkId(side: Side, page: { first: number } | { last: number }): Promise<string> {
  const query = 'query ($first: Int, $last: Int) { securityFrameworks(organizationId: "1", first: $first, last: $last) { nodes { id } } }';
  return (await dataOf(await post(side.main, { query, variables: page }))).securityFrameworks.nodes[0].id;
}

/** A case: what it does on one side, returning what is compared. */
type Case = [name: string, run: (side: Side) => Promise<Answer>];

/** One operation, POSTed to the `main` (or `strict`) gateway. */
const op = (document: string | { kind: string }, variables: Record<string, unknown> = {}, key: string | null = DEMO_ADMIN_KEY, which: Which = 'main') =>
  async (side: Side): Promise<Answer> => {
    const query = typeof document === 'string' ? document : print(document as Parameters<typeof print>[0]);
    return answerOf(await post(side[which], { query, variables }, key), side[which]);
  };

/** A raw HTTP exchange with the `main` gateway. */
const raw = (path: string, init: RequestInit = {}, which: Which = 'main') =>
  async (side: Side): Promise<Answer> => answerOf(await fetch(new URL(path, side[which].url), init), side[which]);

const withKey = { 'x-service-token': DEMO_ADMIN_KEY };
const preflight = { ...withKey, 'apollo-require-preflight': 'true' };
const DEVICE_NODE = '{ id deviceId type services organization { id name } }';
const DEEP = `{ protectionDevices(first: 1) { nodes { organization { id } traffic(first: 1) { nodes { id } pageInfo { endCursor } } } } }`;
const DEEPER = `{ protectionDevices(first: 1) { edges { node { traffic(first: 1) { edges { node { extra } } } } } } }`;
const COSTLY = `{ protectionDevices(first: 100) { nodes { traffic(first: 100) { nodes { id } } } } }`;
const ALIASES = `{ ${Array.from({ length: 9 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
const FRAMEWORK_INPUT = {
  title: 'Access reviews',
  controls: [
    { controlId: 'AR-1', type: 'preventive', title: 'Quarterly review', weight: 2, frequency: '0 9 1 */3 *', evidenceType: 'document', details: { owner: 'secops', steps: ['list', 'review'] } },
    { controlId: 'AR-2', type: 'detective', title: 'Alert on new admin', weight: 1.5, frequency: '*/5 * * * *', evidenceType: 'log' },
  ],
};
/** The demo traffic's last three days, from/to. */
const WINDOW = { from: '2026-11-18T00:00:00Z', to: '2026-11-20T12:00:00Z' };

const queries: Case[] = [
  ['a page of devices', op(DevicesDocument, { first: 5 })],
  ['the next page of devices, by its cursor', async (side) => {
    const first = await dataOf(await post(side.main, { query: print(DevicesDocument), variables: { first: 4 } }));
    return op(DevicesDocument, { first: 4, after: first.protectionDevices.pageInfo.endCursor })(side);
  }],
  ['the last devices, backwards', op(DevicesDocument, { last: 3 })],
  ['devices of one organization, ordered by e-mail descending', op(DevicesDocument, { first: 6, filter: { organizationId: '2' }, orderBy: { field: 'EMAIL', direction: 'DESC' } })],
  ['devices running a service', op(DevicesDocument, { first: 20, filter: { services: ['waf'] } })],
  ['one device', op(DeviceDocument, { id: '3' })],
  ['a device with its traffic', op(DeviceWithTrafficDocument, { id: '2', first: 7 })],
  ['an unknown device is null', op(DeviceDocument, { id: '999999' })],
  ['twenty devices with their five newest entries', op('{ protectionDevices(first: 20) { nodes { id deviceId traffic(first: 5) { totalCount nodes { id dateTime type srcIp destIp destPort logMessage extra } } } } }')],
  ['a traffic log page', op(TrafficLogDocument, { deviceId: '1', first: 10 })],
  ['a traffic window from/to, oldest first', op(TrafficWindowIdsDocument, { deviceId: '1', first: 20, filter: WINDOW, orderBy: { field: 'DATE_TIME', direction: 'ASC' } })],
  ['a traffic window, the last of it', op(TrafficWindowIdsDocument, { deviceId: '2', last: 5, filter: { from: WINDOW.from } })],
  ['traffic searched for a word, by action', op(TrafficLogDocument, { deviceId: '1', first: 5, filter: { search: 'GET', actions: ['block', 'allow'] } })],
  ['traffic ordered by destination port', op(TrafficLogDocument, { deviceId: '3', first: 5, orderBy: { field: 'DEST_PORT', direction: 'ASC' } })],
  ["an organization's frameworks", op(FrameworkNodesDocument, { organizationId: '1' })],
  ['a framework with its evidence', async (side) => {
    return op(ExecEvidenceDocument, { organizationId: '1', id: await frameworkId(side, { first: 1 }) })(side);
  }],
  ['an unknown framework', op(FrameworkDocument, { organizationId: '1', id: '999999' })],
  ["an organization's key sees its own devices", op(`{ protectionDevices(first: 50) { totalCount nodes ${DEVICE_NODE} } }`, {}, ORGANIZATION_KEY)],
  ['a page of web protection records', op(WebProtectionRecordPageDocument, { first: 3 })],
  ['a web protection record', async (side) => {
    const page = await dataOf(await post(side.main, { query: print(WebProtectionRecordPageDocument), variables: { first: 1 } }));
    return op(WebProtectionRecordByIdDocument, { id: page.webProtectionRecords.nodes[0].id })(side);
  }],
  ['fragments, aliases, @skip and @include', op(`query Mixed($skip: Boolean!) { a: protectionDevice(id: "1") { ...D } b: protectionDevice(id: "2") @skip(if: $skip) { ...D } c: protectionDevice(id: "3") @include(if: $skip) { id } } fragment D on ProtectionDevice ${DEVICE_NODE}`, { skip: true })],
  ['__typename alone', op('{ __typename }')],
];

const mutations: Case[] = [
  ['a framework created, then read back', async (side) => {
    const created = await post(side.main, { query: print(CreateFrameworkDocument), variables: { organizationId: '1', input: FRAMEWORK_INPUT } });
    const id = (await dataOf(created)).createSecurityFramework.id;
    return [await answerOf(created, side.main), await op(FrameworkDocument, { organizationId: '1', id })(side)];
  }],
  ['a framework updated, then deleted', async (side) => {
    const id = await frameworkId(side, { last: 1 });
    const input = { ...FRAMEWORK_INPUT, title: 'Access reviews (monthly)', controls: FRAMEWORK_INPUT.controls.slice(0, 1) };
    return [await op(UpdateFrameworkDocument, { organizationId: '1', id, input })(side), await op(DeleteFrameworkDocument, { organizationId: '1', id })(side), await op(FrameworkDocument, { organizationId: '1', id })(side)];
  }],
  ['a web protection record updated, then read back', async (side) => {
    const page = await dataOf(await post(side.main, { query: print(WebProtectionRecordPageDocument), variables: { first: 1 } }));
    const id = page.webProtectionRecords.nodes[0].id;
    return [await op(UpdateWebProtectionRecordDocument, { id, input: { services: ['waf', 'ddos'], email: 'owner@example.com' } })(side), await op(WebProtectionRecordByIdDocument, { id })(side)];
  }],
];

/** Mints a link on the main gateway and downloads it: the mutation's answer and the file's bytes. */
const exported = (variables: Record<string, unknown>) => async (side: Side): Promise<Answer> => {
  const query = 'mutation Export($deviceId: ID!, $format: TrafficExportFormat!, $filter: TrafficLogFilter) { createTrafficExport(deviceId: $deviceId, format: $format, filter: $filter) { export { url format expiresAt } } }';
  const minted = await post(side.main, { query, variables });
  const url = (await dataOf(minted)).createTrafficExport.export.url as string;
  const download = await fetch(url);
  const bytes = Buffer.from(await download.arrayBuffer());
  return [await answerOf(minted, side.main), download.status, download.headers.get('content-type'), download.headers.get('content-disposition'), bytes.length, sha256(bytes.toString('binary'))];
};

const exportsAndTransport: Case[] = [
  ['an export link downloaded as CSV', exported({ deviceId: '1', format: 'CSV' })],
  ['an export link downloaded as NDJSON, in a window', exported({ deviceId: '2', format: 'NDJSON', filter: WINDOW })],
  ['an export of an unknown device', op('mutation { createTrafficExport(deviceId: "999999", format: CSV) { export { url } } }')],
  ['an unknown export link', raw('/exports/not-a-link')],
  ['a GET query', raw(`/graphql?query=${encodeURIComponent(`{ protectionDevices(first: 2) { nodes ${DEVICE_NODE} } }`)}`, { headers: preflight })],
  ['a GET query without the CSRF preflight header', raw(`/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: withKey })],
  ['a mutation sent by GET', raw(`/graphql?query=${encodeURIComponent('mutation { deleteWebProtectionRecord(id: "1") { webProtectionRecord { id } } }')}`, { headers: preflight })],
  ['an automatic persisted query: unknown, registered, then by its hash alone', async (side) => {
    const query = `{ protectionDevices(first: 1) { nodes ${DEVICE_NODE} } }`;
    const persistedQuery = { version: 1, sha256Hash: sha256(query) };
    const answers = [];
    for (const body of [{ extensions: { persistedQuery } }, { query, extensions: { persistedQuery } }, { extensions: { persistedQuery } }]) answers.push(await answerOf(await post(side.main, body), side.main));
    return answers;
  }],
  ["a persisted query whose hash is not its text's", async (side) =>
    answerOf(await post(side.main, { query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ other }') } } }), side.main)],
  ['a batch (batching is off)', async (side) => answerOf(await post(side.main, [{ query: '{ __typename }' }, { query: '{ __typename }' }]), side.main)],
];

const errors: Case[] = [
  ['traffic of an unknown device', op(TrafficLogDocument, { deviceId: '999999', first: 1 })],
  ["another organization's frameworks with an organization's key", op(FrameworkNodesDocument, { organizationId: '2' }, ORGANIZATION_KEY)],
  ['a framework that breaks the input rules', op(CreateFrameworkDocument, { organizationId: '1', input: { title: '', controls: [] } })],
  ['a framework created by an admin key without an organization', op(CreateFrameworkDocument, { input: FRAMEWORK_INPUT })],
  ['a web protection record with a bad e-mail', op(UpdateWebProtectionRecordDocument, { id: '1', input: { email: 'not an address' } })],
  ['an unknown web protection record deleted', op(DeleteWebProtectionRecordDocument, { id: '999999' })],
  ['two mutations, the first failing', op(`mutation { a: deleteSecurityFramework(organizationId: "1", id: "999999") { securityFramework { id } } b: createSecurityFramework(organizationId: "1", input: { title: "Second", controls: [] }) { id } }`)],
  ['a syntax error', op('{ protectionDevices(first: 1) { nodes { id }')],
  ['an unknown field (no suggestions in production)', op('{ protectionDevices(first: 1) { nodes { idd } } }')],
  ['a missing variable', op('query ($id: ID!) { protectionDevice(id: $id) { id } }')],
  ['a variable of the wrong type', op('query ($first: Int) { protectionDevices(first: $first) { totalCount } }', { first: 'many' })],
  ['a date-time that is not one', op(TrafficLogDocument, { deviceId: '1', first: 1, filter: { from: 'yesterday' } })],
  ['a page size out of range', op(DevicesDocument, { first: 100000 })],
  ['no key', op('{ protectionDevices(first: 1) { totalCount } }', {}, null)],
  ['a key the upstream refuses', op('{ protectionDevices(first: 1) { totalCount } }', {}, 'not-a-known-key-0000')],
  ['past the cost limit', op(COSTLY)],
  ['at the depth limit', op(DEEP)],
  ['past the depth limit', op(DEEPER)],
  ['past the alias limit', op(ALIASES)],
  ['introspection, off in production', op('{ __schema { queryType { name } } }')],
  ['a body that is not JSON', async (side) => answerOf(await post(side.main, '{"query": '), side.main)],
  ['a body past the limit', async (side) => answerOf(await post(side.main, { query: `{ __typename }${' '.repeat(70_000)}` }), side.main)],
  ['an unknown route', raw('/nowhere', { headers: withKey })],
  ['a URL past the header limit', raw(`/graphql?query=${'x'.repeat(22_000)}`, { headers: preflight })],
  ['an unsupported method', raw('/graphql', { method: 'PUT', headers: withKey })],
];

/** A document of the manifest, sent to the strict gateway by its documentId. */
const trusted = (text: string) => async (side: Side): Promise<Answer> => answerOf(await post(side.strict, { documentId: documentId(text) }), side.strict);

const strict: Case[] = [
  ['a trusted document by documentId', trusted(TRUSTED)],
  ['a trusted document by GET', raw(`/graphql?documentId=${documentId(TRUSTED)}`, { headers: preflight }, 'strict')],
  ['an untrusted document, refused', op('{ protectionDevices(first: 4) { totalCount } }', {}, DEMO_ADMIN_KEY, 'strict')],
  ['an unknown documentId', async (side) => answerOf(await post(side.strict, { documentId: `sha256:${'0'.repeat(64)}` }), side.strict)],
  ['the whole schema by introspection, every description', trusted(INTROSPECTION)],
  ["the subgraph's SDL (_service)", trusted(SUBGRAPH_SDL)],
];

const operatorEndpoints: Case[] = [
  ['/healthz and /version: their keys', async (side) => {
    const keys = async (path: string) => {
      const response = await fetch(new URL(path, side.main.url));
      return [response.status, Object.keys((await response.json()) as object).sort()];
    };
    return [await keys('/healthz'), await keys('/version')];
  }],
  ['/readyz', raw('/readyz')],
  ['/metrics: the metric names', async (side) => {
    const text = await (await fetch(new URL('/metrics', side.main.url))).text();
    return [...new Set(text.split('\n').filter((line) => line.startsWith('# TYPE ')))];
  }],
];

const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...withKey };
const mcp: Case[] = [
  ['MCP tools/list', raw('/mcp', { method: 'POST', headers: mcpHeaders, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })],
  ['an MCP tool call', raw('/mcp', { method: 'POST', headers: mcpHeaders, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'LatestDeviceTraffic', arguments: { deviceId: '2', count: 3 } } }) })],
  ['an MCP tool call with a bad argument', raw('/mcp', { method: 'POST', headers: mcpHeaders, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'LatestDeviceTraffic', arguments: { deviceId: '2', count: 'three' } } }) })],
];

/** The first `count` payloads of a subscription on `which` gateway, with `params` in connection_init. */
async function tail(side: Side, variables: Record<string, unknown>, count: number, options: { query?: string; which?: Which; params?: Record<string, unknown> } = {}): Promise<Answer> {
  const client = tailClient(side[options.which ?? 'main'].url, options.params ?? { 'x-service-token': DEMO_ADMIN_KEY });
  try {
    const received = client.subscribe(variables, options.query);
    await until(() => received.results.length >= count || received.errors.length > 0, 15_000, `${count} payloads of the tail`);
    received.stop();
    return [received.results.slice(0, count), received.errors];
  } finally {
    await client.dispose();
  }
}

const subscriptions: Case[] = [
  ['a tail from an entry: the first entries after it', async (side) => {
    const page = await dataOf(await post(side.main, { query: print(TrafficLogDocument), variables: { deviceId: '4', first: 6 } }));
    return tail(side, { deviceId: '4', afterId: page.trafficLog.nodes[5].id }, 5);
  }],
  ['a tail of an unknown device', (side) => tail(side, { deviceId: '999999' }, 1)],
  ['a tail with a variable of the wrong type', (side) => tail(side, { deviceId: { not: 'an id' } }, 1)],
  ['an untrusted subscription, refused over WebSocket', (side) => tail(side, { deviceId: '4' }, 1, { which: 'strict', query: TAIL_SUBSCRIPTION.replace('extra', '') })],
  ['a trusted subscription from an entry', async (side) => {
    const page = await dataOf(await post(side.main, { query: print(TrafficLogDocument), variables: { deviceId: '5', first: 3 } }));
    return tail(side, { deviceId: '5', afterId: page.trafficLog.nodes[2].id }, 2, { which: 'strict' });
  }],
  ['a subscription with a refused key', async (side) => {
    const client = tailClient(side.main.url, { 'x-service-token': 'not-a-known-key-0000' });
    client.subscribe({ deviceId: '4' }, TAIL_SUBSCRIPTION);
    const { code, reason } = await client.closed;
    return { code, reason };
  }],
];

const SUITES: [string, Case[]][] = [
  ['queries', queries],
  ['mutations', mutations],
  ['exports, GET and persisted queries', exportsAndTransport],
  ['errors', errors],
  ['trusted documents and introspection', strict],
  ['subscriptions', subscriptions],
  ['MCP', mcp],
  ['operator endpoints', operatorEndpoints],
];

/** Every answer must be an answer: no 5xx, no internal error, from either form. */
function sound(answer: Answer): void {
  if (Array.isArray(answer)) return answer.forEach(sound);
  if (answer === null || typeof answer !== 'object' || !('status' in answer)) return;
  const { status, body } = answer as { status: number; body: string };
  expect(status, body).toBeLessThan(500);
  expect(body).not.toContain('"code":"INTERNAL_SERVER_ERROR"');
}

/** Suites whose every answer is a success: no `errors` anywhere (their failures compare too, uselessly). */
const CLEAN = new Set(['queries', 'mutations']);

describe.each(SUITES)('the bundle answers as the sources do: %s', (suite, cases) => {
  it.each(cases)('%s', async (_name, run) => {
    const [bundle, sources] = sides[0]!.form === 'bundle' ? sides : [sides[1]!, sides[0]!];
    const fromBundle = await run(bundle!);
    const fromSources = await run(sources!);
    sound(fromBundle);
    if (CLEAN.has(suite)) expect(JSON.stringify(fromBundle)).not.toContain('errors');
    expect(fromBundle).toEqual(fromSources);
  });
});

it('compared about sixty cases', () => {
  expect(SUITES.reduce((sum, [, cases]) => sum + cases.length, 0)).toBeGreaterThanOrEqual(55);
});
