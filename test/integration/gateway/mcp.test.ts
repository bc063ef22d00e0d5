// The assistants' endpoint end to end: the official MCP SDK's client over Streamable HTTP against
// the gateway on port 0 in front of the seeded reference service. The default tools are listed with
// their schemas and called, and each answer is compared with what the v1 service says over REST
// with the same key; bad arguments, GraphQL errors, mutations, credentials, throttling, cost
// limits, trusted documents, body limits, CORS and the start's checks of operation files.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { startGateway } from '../../../src/gateway/server.ts';
import { DEMO_ADMIN_KEY, startGatewayOn, startStack, type Stack } from '../../helpers/gateway.ts';
import * as oracle from '../../helpers/oracle.ts';
import { startOtlpReceiver } from '../../helpers/otlp-receiver.ts';
import { v1Request } from '../../helpers/v1.ts';

const SEED = { devices: 12, traffic: 400, hotTraffic: 120 };
const HOT = '1';
const ORG1_KEY = 'demo-org1-key-acme';
const MCP_ON = { mcp: { operations: undefined, allowMutations: false } };

const mcpUrl = (stack: Stack) => new URL('/mcp', stack.gateway.url);

async function connect(stack: Stack, key: string | null = DEMO_ADMIN_KEY, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'gateway-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(mcpUrl(stack), {
    requestInit: { headers: { ...(key === null ? {} : { 'x-service-token': key }), ...headers } },
  });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The result's data, after checking it is a success whose text is the same JSON. */
function dataOf(result: CallToolResult): any {
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const text = result.content[0];
  expect(text?.type).toBe('text');
  expect(JSON.parse((text as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

/** The errors of a failed call, from its first text block. */
function errorsOf(result: CallToolResult): { message: string; path?: (string | number)[]; extensions: { code: string; [key: string]: unknown } }[] {
  expect(result.isError, JSON.stringify(result.content)).toBe(true);
  return JSON.parse((result.content[0] as { text: string }).text).errors;
}

async function v1Json(stack: Stack, path: string, token = DEMO_ADMIN_KEY): Promise<any> {
  const response = await v1Request(stack.v1, 'GET', path, { token });
  expect(response.status, path).toBe(200);
  return response.json;
}

function operationsFolder(files: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), 'mcp-operations-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  return folder;
}

describe('the default tools', () => {
  let stack: Stack;
  let client: Client;
  let tools: Tool[];

  beforeAll(async () => {
    stack = await startStack({ v1: { seedSizes: SEED }, gateway: MCP_ON });
    client = await connect(stack);
    tools = (await client.listTools()).tools;
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await stack?.close();
  });

  const tool = (name: string) => {
    const found = tools.find((candidate) => candidate.name === name);
    expect(found, name).toBeDefined();
    return found!;
  };

  it('lists the four analysts\' tools, read-only, each with a description an assistant can act on', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(['FrameworkEvidenceState', 'LatestDeviceTraffic', 'SearchDeviceTraffic', 'TopMaliciousDevices']);
    for (const t of tools) {
      expect(t.annotations?.readOnlyHint, t.name).toBe(true);
      expect(t.description!.length, t.name).toBeGreaterThan(200);
      expect(t.inputSchema.type).toBe('object');
    }
    expect(tool('TopMaliciousDevices').description).toMatch(/^Protection devices with their request counts/);
    expect(tool('TopMaliciousDevices').annotations?.title).toBe('Top malicious devices');
  });

  it('derives each input schema from the variables and the SDL', () => {
    const search = tool('SearchDeviceTraffic').inputSchema as any;
    expect(search.required).toEqual(['deviceId']);
    expect(search.additionalProperties).toBe(false);
    expect(search.properties.deviceId).toEqual({ type: 'string', description: 'The device whose traffic to list.' });
    expect(search.properties.first).toMatchObject({ type: 'integer', default: 25 });
    expect(search.properties.from).toMatchObject({ type: 'string', format: 'date-time' });
    expect(search.properties.from.description).toMatch(/at or after this instant/);
    expect(search.properties.first.description).toMatch(/1–100/);
    expect(search.properties.actions).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(search.properties.actions.description).toMatch(/whose `action`/);
    const orderBy = search.properties.orderBy;
    expect(orderBy.type).toBe('object');
    expect(orderBy.required).toEqual(['field']);
    expect([...orderBy.properties.field.enum].sort()).toEqual(['DATE_TIME', 'DEST_IP', 'DEST_PORT', 'ID', 'SRC_IP', 'TYPE']);
    expect(orderBy.properties.field.description).toMatch(/DATE_TIME: When the event happened/);
    expect(orderBy.properties.direction).toMatchObject({ enum: ['ASC', 'DESC'], default: 'DESC' });
    const latest = tool('LatestDeviceTraffic').inputSchema as any;
    expect(latest.properties.count).toMatchObject({ type: 'integer', default: 10 });
    expect(latest.required).toEqual(['deviceId']);
    const frameworks = tool('FrameworkEvidenceState').inputSchema as any;
    expect(frameworks.properties.organizationId.description).toBe('The organization whose frameworks to list.');
  });

  it('TopMaliciousDevices gives every device\'s hourly figures as v1 holds them, so the ranking is v1\'s', async () => {
    const data = dataOf(await call(client, 'TopMaliciousDevices'));
    const v1 = await v1Json(stack, '/api/v1/atb?limit=500&order=id');
    expect(data.protectionDevices.totalCount).toBe(v1.total);
    expect(data.protectionDevices.nodes.map((d: any) => d.id)).toEqual(v1.data.map((d: oracle.V1Device) => String(d.id)));
    for (const [index, device] of (v1.data as oracle.V1Device[]).entries()) {
      const expected = oracle.protectionDevice(device);
      expect(data.protectionDevices.nodes[index].check.chartStat).toEqual(expected.check!.chartStat);
    }
    const rank = (pairs: [string, number][]) => pairs.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([id]) => id);
    const sum = (buckets: { maliciousRequests?: number; malicious_requests?: number }[]) => buckets.reduce((total, b) => total + (b.maliciousRequests ?? b.malicious_requests ?? 0), 0);
    const fromTool = rank(data.protectionDevices.nodes.map((d: any) => [d.id, sum(d.check?.chartStat ?? [])]));
    const fromV1 = rank(v1.data.map((d: oracle.V1Device) => [String(d.id), sum(d.check?.chart_stat ?? [])]));
    expect(fromTool.slice(0, 5)).toEqual(fromV1.slice(0, 5));
  });

  it('TopMaliciousDevices narrows to one organization with its key', async () => {
    const org1 = await connect(stack, ORG1_KEY);
    try {
      const data = dataOf(await call(org1, 'TopMaliciousDevices', { first: 5 }));
      const v1 = await v1Json(stack, '/api/v1/atb?limit=5&order=id', ORG1_KEY);
      expect(data.protectionDevices.totalCount).toBe(v1.total);
      expect(data.protectionDevices.nodes.map((d: any) => d.id)).toEqual(v1.data.map((d: oracle.V1Device) => String(d.id)));
      expect(data.protectionDevices.pageInfo.hasNextPage).toBe(v1.total > 5);
    } finally {
      await org1.close();
    }
  });

  it('SearchDeviceTraffic searches, filters by action and orders as v1 does', async () => {
    const newest = (await v1Json(stack, `/api/v1/atb/${HOT}/traffic?limit=1&order=-id`)).data[0];
    const term = newest.src_ip;
    const args = { deviceId: HOT, search: term, actions: ['block', 'challenge'], orderBy: { field: 'DEST_PORT', direction: 'ASC' }, first: 10 };
    const data = dataOf(await call(client, 'SearchDeviceTraffic', args));
    const v1 = await v1Json(stack, `/api/v1/atb/${HOT}/traffic?limit=10&order=dest_port&search=${encodeURIComponent(term)}&actions[]=block&actions[]=challenge`);
    expect(data.trafficLog.totalCount).toBe(v1.total);
    expect(data.trafficLog.nodes).toEqual(v1.data.map(oracle.trafficLogEntry));
    // Without arguments but the device: the default order (newest first) and page (25).
    const all = dataOf(await call(client, 'SearchDeviceTraffic', { deviceId: HOT }));
    const v1All = await v1Json(stack, `/api/v1/atb/${HOT}/traffic?limit=25&order=-date_time`);
    expect(all.trafficLog.totalCount).toBe(v1All.total);
    expect(all.trafficLog.nodes).toEqual(v1All.data.map(oracle.trafficLogEntry));
    // A time window, [the 20th newest entry's instant, the 5th newest's): v1 has no date filter, so
    // its whole log, newest first, is cut at the same instants here.
    const log = (await v1Json(stack, `/api/v1/atb/${HOT}/traffic?limit=1000&order=-date_time`)).data as oracle.V1Traffic[];
    const from = new Date(log[19]!.date_time).toISOString();
    const to = new Date(log[4]!.date_time).toISOString();
    const windowed = dataOf(await call(client, 'SearchDeviceTraffic', { deviceId: HOT, from, to, first: 100 }));
    const inWindow = log.filter((entry) => new Date(entry.date_time).toISOString() >= from && new Date(entry.date_time).toISOString() < to);
    expect(inWindow.length).toBeGreaterThan(5);
    expect(windowed.trafficLog.totalCount).toBe(inWindow.length);
    expect(windowed.trafficLog.nodes.map((entry: { id: string }) => entry.id).sort()).toEqual(inWindow.map((entry) => String(entry.id)).sort());
    const wrongOrder = errorsOf(await call(client, 'SearchDeviceTraffic', { deviceId: HOT, from, orderBy: { field: 'SRC_IP' } }));
    expect(wrongOrder[0]!.extensions.code).toBe('BAD_USER_INPUT');
    // The next page, as the description says.
    const next = dataOf(await call(client, 'SearchDeviceTraffic', { deviceId: HOT, after: all.trafficLog.pageInfo.endCursor }));
    const v1Next = await v1Json(stack, `/api/v1/atb/${HOT}/traffic?limit=25&offset=25&order=-date_time`);
    expect(next.trafficLog.nodes).toEqual(v1Next.data.map(oracle.trafficLogEntry));
  });

  it('FrameworkEvidenceState gives each control\'s evidence as v1 holds it', async () => {
    const v1 = await v1Json(stack, '/api/v1/organizations/1/security-frameworks');
    expect(v1.total).toBeGreaterThan(0);
    const data = dataOf(await call(client, 'FrameworkEvidenceState', { organizationId: '1' }));
    expect(data.securityFrameworks.totalCount).toBe(v1.total);
    const expected = (v1.data as oracle.V1Framework[]).map(oracle.securityFramework).map((framework) => ({
      id: framework.id,
      title: framework.title,
      controls: framework.controls.map((control) => ({
        controlId: control.controlId,
        title: control.title,
        evidenceType: control.evidenceType,
        frequency: control.frequency,
        weight: control.weight,
        evidences: control.evidences.map((evidence) => ({
          datetime: evidence.datetime,
          completed: evidence.completed,
          residualRisk: evidence.residualRisk,
          submittedBy: { userEmail: evidence.submittedBy.userEmail },
        })),
      })),
    }));
    expect(data.securityFrameworks.nodes).toEqual(expected);
  });

  it('LatestDeviceTraffic gives the device\'s newest entries as v1 holds them', async () => {
    const data = dataOf(await call(client, 'LatestDeviceTraffic', { deviceId: HOT, count: 5 }));
    const v1 = await v1Json(stack, `/api/v1/atb/${HOT}/traffic?limit=5&order=-id`);
    const device = (await v1Json(stack, '/api/v1/atb?limit=500&order=id')).data.find((d: oracle.V1Device) => String(d.id) === HOT);
    expect(data.protectionDevice.id).toBe(HOT);
    expect(data.protectionDevice.deviceId).toBe(device.device_id);
    expect(data.protectionDevice.check.status).toBe(device.check.status);
    expect(data.protectionDevice.traffic.totalCount).toBe(v1.total);
    expect(data.protectionDevice.traffic.nodes).toEqual(v1.data.map(oracle.trafficLogEntry));
  });

  it('an invalid argument is isError with BAD_USER_INPUT, and nothing is asked of v1', async () => {
    stack.proxy.reset();
    const badEnum = errorsOf(await call(client, 'SearchDeviceTraffic', { deviceId: HOT, orderBy: { field: 'NEWEST' } }));
    expect(badEnum[0]!.extensions.code).toBe('BAD_USER_INPUT');
    expect(badEnum[0]!.message).toMatch(/NEWEST/);
    const missing = errorsOf(await call(client, 'LatestDeviceTraffic', {}));
    expect(missing[0]!.extensions.code).toBe('BAD_USER_INPUT');
    const unknown = errorsOf(await call(client, 'LatestDeviceTraffic', { deviceId: HOT, limit: 3 }));
    expect(unknown[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(unknown[0]!.message).toMatch(/"limit".*deviceId, count/);
    const inherited = errorsOf(await call(client, 'LatestDeviceTraffic', { deviceId: HOT, constructor: 'x' }));
    expect(inherited[0]!.extensions.code).toBe('BAD_USER_INPUT');
    const tooMany = errorsOf(await call(client, 'LatestDeviceTraffic', { deviceId: HOT, count: 1000 }));
    expect(tooMany.map((error) => error.extensions.code)).toContain('BAD_USER_INPUT');
    expect(stack.proxy.calls.length).toBe(0);
  });

  it('a GraphQL error is isError with its code, beside the data still produced', async () => {
    const result = await call(client, 'SearchDeviceTraffic', { deviceId: '99999' });
    const errors = errorsOf(result);
    expect(errors[0]!.extensions.code).toBe('NOT_FOUND');
    expect(result.structuredContent).toEqual({ trafficLog: null });
    const forbidden = await connect(stack, ORG1_KEY);
    try {
      const refused = errorsOf(await call(forbidden, 'FrameworkEvidenceState', { organizationId: '2' }));
      expect(refused[0]!.extensions.code).toBe('FORBIDDEN');
    } finally {
      await forbidden.close();
    }
  });

  it('a failing upstream is isError with its code, and names neither the upstream nor a key', async () => {
    stack.proxy.fail((proxied) => (proxied.path.includes('/traffic') ? 503 : undefined));
    try {
      const result = await call(client, 'LatestDeviceTraffic', { deviceId: HOT, count: 1 });
      const errors = errorsOf(result);
      expect(errors[0]!.extensions.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(errors[0]!.path).toEqual(['protectionDevice', 'traffic']);
      expect((result.structuredContent as any).protectionDevice.id).toBe(HOT);
      const text = JSON.stringify(result);
      expect(text).not.toContain(stack.proxy.url);
      expect(text).not.toContain(stack.v1.url);
      for (const known of stack.keys()) expect(text).not.toContain(known);
    } finally {
      stack.proxy.fail(() => undefined);
    }
  });

  it('an unknown tool is a protocol error', async () => {
    await expect(client.callTool({ name: 'DropEverything', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('each call is logged under its operation name, counted, and carries extensions.cost', async () => {
    const result = await call(client, 'LatestDeviceTraffic', { deviceId: HOT });
    expect((result._meta as any)?.extensions?.cost).toMatchObject({ estimated: expect.any(Number), upstreamCalls: 2 });
    const line = stack.logs.map((l) => JSON.parse(l)).find((entry) => entry.operation === 'LatestDeviceTraffic');
    expect(line).toMatchObject({ operation: 'LatestDeviceTraffic', outcome: 'ok' });
    for (const known of stack.keys()) expect(stack.logs.join('\n')).not.toContain(known);
    const metrics = await (await fetch(new URL('/metrics', stack.gateway.url))).text();
    expect(metrics).toMatch(/mcp_tool_calls_total\{tool="LatestDeviceTraffic",outcome="ok"\} [1-9]/);
    expect(metrics).toMatch(/mcp_tool_calls_total\{tool="SearchDeviceTraffic",outcome="NOT_FOUND"\} [1-9]/);
  });

  it('without a key: HTTP 401 with a Bearer challenge, and the SDK client cannot connect', async () => {
    const response = await fetch(mcpUrl(stack), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await expect(connect(stack, null)).rejects.toMatchObject({ code: 401 });
  });

  it('any request stands alone: no session id, a tools/call without initialize is answered, GET and DELETE are 405', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-service-token': DEMO_ADMIN_KEY };
    const response = await fetch(mcpUrl(stack), {
      method: 'POST',
      headers: { ...headers, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'LatestDeviceTraffic', arguments: { deviceId: HOT, count: 1 } } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    const body = (await response.json()) as any;
    expect(body.id).toBe(7);
    expect(body.result.structuredContent.protectionDevice.traffic.nodes).toHaveLength(1);
    for (const method of ['GET', 'DELETE']) {
      const refused = await fetch(mcpUrl(stack), { method, headers: { 'x-service-token': DEMO_ADMIN_KEY, accept: 'text/event-stream' } });
      expect(refused.status, method).toBe(405);
    }
  });

  it('the curl call of docs/mcp.md works as written', async () => {
    const section = readFileSync(new URL('../../../docs/mcp.md', import.meta.url), 'utf8');
    const command = /```sh\n(curl[\s\S]*?)```/.exec(section)![1]!.replace(/\\\n\s*/g, ' ');
    const headers = Object.fromEntries([...command.matchAll(/-H '([^:]+): ([^']+)'/g)].map((match) => [match[1]!, match[2]!]));
    const body = /-d '([^']+)'/.exec(command)![1]!;
    expect(/curl -s (\S+)/.exec(command)![1]).toBe('http://localhost:4000/mcp');
    const response = await fetch(mcpUrl(stack), { method: 'POST', headers, body });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as any;
    expect(answer.result.isError).toBeUndefined();
    expect(answer.result.structuredContent.protectionDevice.traffic.nodes).toHaveLength(3);
  });

  it('the body limit of /graphql applies: a larger body is 413, and malformed JSON is a parse error', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-service-token': DEMO_ADMIN_KEY };
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'SearchDeviceTraffic', arguments: { deviceId: HOT, search: 'x'.repeat(1024 * 1024 + 10) } } });
    const tooLarge = await fetch(mcpUrl(stack), { method: 'POST', headers, body: huge });
    expect(tooLarge.status).toBe(413);
    expect(((await tooLarge.json()) as any).error.message).toMatch(/BODY_LIMIT_BYTES/);
    const malformed = await fetch(mcpUrl(stack), { method: 'POST', headers, body: '{"jsonrpc":' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as any).error.code).toBe(-32700);
  });

  it('CORS: Sandbox\'s and configured origins get the MCP headers; other origins get none and are refused', async () => {
    const preflight = (origin: string) =>
      fetch(mcpUrl(stack), { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,mcp-protocol-version,x-service-token' } });
    const allowed = await preflight('https://studio.apollographql.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/mcp-protocol-version/);
    expect(allowed.headers.get('access-control-expose-headers')).toMatch(/mcp-session-id/);
    const other = await preflight('https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('access-control-allow-headers')).toBeNull();
    // Any other origin is refused outright, even with a key: a DNS-rebound page is same-origin to its browser.
    const rebound = await fetch(mcpUrl(stack), {
      method: 'POST',
      headers: { origin: 'http://attacker.example:4000', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-service-token': DEMO_ADMIN_KEY },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(rebound.status).toBe(403);
    const sandbox = await fetch(mcpUrl(stack), {
      method: 'POST',
      headers: { origin: 'https://studio.apollographql.com', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-service-token': DEMO_ADMIN_KEY },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(sandbox.status).toBe(200);
    expect(sandbox.headers.get('access-control-allow-origin')).toBe('https://studio.apollographql.com');
  });
});

describe('stateless: any replica answers', () => {
  it('a client behind a round-robin balancer initializes on one replica and calls tools on the other', async () => {
    const stack = await startStack({ v1: { seedSizes: SEED }, gateway: MCP_ON });
    const second = await startGatewayOn(stack.v1.url, { MCP: '1', LOG_LEVEL: 'silent' });
    const replicas = [new URL(stack.gateway.url), new URL(second.gateway.url)];
    const served: number[] = [];
    let next = 0;
    const balancer = createServer((req, res) => {
      const index = next++ % replicas.length;
      served.push(index);
      const target = replicas[index]!;
      const forward = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => balancer.listen(0, '127.0.0.1', resolve));
    const client = new Client({ name: 'gateway-tests', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(balancer.address() as AddressInfo).port}/mcp`), {
        requestInit: { headers: { 'x-service-token': DEMO_ADMIN_KEY } },
      }),
    );
    try {
      for (let i = 0; i < 3; i++) {
        const data = dataOf(await call(client, 'LatestDeviceTraffic', { deviceId: HOT, count: 1 }));
        expect(data.protectionDevice.id).toBe(HOT);
      }
      expect((await client.listTools()).tools).toHaveLength(4);
      // initialize, initialized, the refused event stream, three calls and a listing: both replicas served.
      expect(new Set(served)).toEqual(new Set([0, 1]));
    } finally {
      await client.close();
      balancer.close();
      await second.close();
      await stack.close();
    }
  }, 60_000);
});

describe('limits and throttling apply to tool calls', () => {
  it('a call over the bucket is refused with RATE_LIMITED and retryAfter', async () => {
    const stack = await startStack({ v1: { seedSizes: SEED }, gateway: { ...MCP_ON, rateLimit: { calls: 3, restorePerSecond: 1 } } });
    const client = await connect(stack);
    try {
      const codes: string[] = [];
      for (let attempt = 0; attempt < 6; attempt++) {
        const result = await call(client, 'LatestDeviceTraffic', { deviceId: HOT, count: 1 });
        codes.push(result.isError ? errorsOf(result)[0]!.extensions.code : 'ok');
        if (result.isError) {
          expect(errorsOf(result)[0]!.extensions.retryAfter).toBeTypeOf('number');
          break;
        }
      }
      expect(codes[0]).toBe('ok');
      expect(codes.at(-1)).toBe('RATE_LIMITED');
      // The same key on /graphql shares the bucket: it is this key's, whichever door it uses.
      const graphql = await fetch(stack.gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-token': DEMO_ADMIN_KEY },
        body: JSON.stringify({ query: '{ protectionDevice(id: "1") { id } }' }),
      });
      expect(graphql.status).toBe(429);
    } finally {
      await client.close();
      await stack.close();
    }
  }, 60_000);

  it('a call over MAX_COST is refused with QUERY_TOO_COMPLEX before any upstream call', async () => {
    const stack = await startStack({ v1: { seedSizes: SEED }, gateway: { ...MCP_ON, limits: { ...parseGatewayConfig({}).limits, maxCost: 5 } } });
    const client = await connect(stack);
    try {
      stack.proxy.reset();
      const errors = errorsOf(await call(client, 'TopMaliciousDevices', {}));
      expect(errors[0]!.extensions.code).toBe('QUERY_TOO_COMPLEX');
      expect(stack.proxy.calls.length).toBe(0);
    } finally {
      await client.close();
      await stack.close();
    }
  }, 60_000);
});

describe('the rest of the pipeline applies to tool calls', () => {
  it('a span per call continues the client\'s traceparent, and the response cache answers a repeated call', async () => {
    const receiver = await startOtlpReceiver();
    const env = parseGatewayConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50', RESPONSE_CACHE_TTL_S: '60' });
    const stack = await startStack({ v1: { seedSizes: SEED }, gateway: { ...MCP_ON, tracing: env.tracing, responseCache: env.responseCache } });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const clientSpan = '00f067aa0ba902b7';
    const client = await connect(stack, DEMO_ADMIN_KEY, { traceparent: `00-${traceId}-${clientSpan}-01` });
    try {
      stack.proxy.reset();
      const first = dataOf(await call(client, 'LatestDeviceTraffic', { deviceId: HOT, count: 2 }));
      const calls = stack.proxy.calls.length;
      expect(calls).toBe(2);
      const spans = await receiver.waitFor(3, (span) => span.traceId === traceId);
      const operation = spans.find((span) => span.kind === 2)!;
      expect(operation).toMatchObject({ name: 'query LatestDeviceTraffic', parentSpanId: clientSpan, attributes: { 'graphql.operation.name': 'LatestDeviceTraffic', 'gateway.outcome': 'ok' } });
      expect(spans.filter((span) => span.kind === 3).every((span) => span.parentSpanId === operation.spanId)).toBe(true);
      // The same call again: answered from the cache, nothing more asked of v1.
      expect(dataOf(await call(client, 'LatestDeviceTraffic', { deviceId: HOT, count: 2 }))).toEqual(first);
      expect(stack.proxy.calls.length).toBe(calls);
    } finally {
      await client.close();
      await stack.close();
      await receiver.close();
    }
  }, 60_000);

  it('a stopping gateway lets a tool call in flight finish', async () => {
    let target = '';
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    // Holds the traffic read until the test lets it go, then forwards it to the v1 service.
    const slow = createServer((req, res) => {
      void (async () => {
        // The start's look at the upstream comes before the v1 service is known here.
        if (target === '') return void res.writeHead(503).end();
        if (req.url?.includes('/traffic')) {
          arrived();
          await held;
        }
        const answer = await fetch(new URL(req.url ?? '/', target), { headers: { 'x-service-token': String(req.headers['x-service-token'] ?? '') } });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      })();
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const stack = await startStack({ v1: { seedSizes: SEED }, gateway: MCP_ON, upstreamUrl: `http://127.0.0.1:${(slow.address() as AddressInfo).port}` });
    target = stack.v1.url;
    const client = await connect(stack);
    try {
      const inFlight = call(client, 'LatestDeviceTraffic', { deviceId: HOT, count: 2 });
      await reached;
      const closing = stack.gateway.close();
      release();
      const data = dataOf(await inFlight);
      expect(data.protectionDevice.traffic.nodes).toHaveLength(2);
      await closing;
    } finally {
      await client.close().catch(() => {});
      await stack.proxy.close();
      await stack.v1.close();
      slow.close();
    }
  }, 60_000);
});

describe('operation files', () => {
  const QUERY = `# One device by its id.
query OneDevice($id: ID!) { protectionDevice(id: $id) { id deviceId } }
`;
  const MUTATIONS = `# Deletes a web protection record for good.
mutation RemoveRecord($id: ID!) { deleteWebProtectionRecord(id: $id) { webProtectionRecord { id fqdn } } }

mutation EditRecord($id: ID!, $input: WebProtectionRecordInput!) { updateWebProtectionRecord(id: $id, input: $input) { webProtectionRecord { id email endpoint } } }
`;
  let folder: string;

  beforeAll(() => {
    folder = operationsFolder({ 'devices.graphql': QUERY, 'records.graphql': MUTATIONS, 'notes.txt': 'not an operation' });
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('mutations are tools only with MCP_ALLOW_MUTATIONS, annotated, and run through the pipeline', async () => {
    const off = await startStack({ gateway: { mcp: { operations: folder, allowMutations: false } } });
    try {
      const client = await connect(off);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['OneDevice']);
      await client.close();
    } finally {
      await off.close();
    }
    const on = await startStack({ gateway: { mcp: { operations: folder, allowMutations: true } } });
    try {
      const client = await connect(on);
      const tools = (await client.listTools()).tools;
      expect(tools.map((t) => t.name)).toEqual(['OneDevice', 'RemoveRecord', 'EditRecord']);
      expect(tools[0]!.annotations).toMatchObject({ readOnlyHint: true });
      expect(tools[1]!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      expect(tools[2]!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
      expect(tools[1]!.description).toBe('Deletes a web protection record for good.');
      // No leading comment: the SDL's description of the field it changes.
      expect(tools[2]!.description).toMatch(/^Edits a web protection record/);
      const input = (tools[2]!.inputSchema as any).properties.input;
      expect(input.properties.email).toMatchObject({ type: 'string', format: 'email' });
      expect(input.properties.endpoint).toMatchObject({ type: 'string', format: 'ipv4' });
      expect(input.properties.services).toMatchObject({ type: 'array', items: { type: 'string' } });
      expect(input.required).toBeUndefined();

      // An empty edit changes nothing and answers the record: the same as v1's answer to an empty PUT.
      const read = dataOf(await call(client, 'EditRecord', { id: '1', input: {} }));
      const v1Record = (await v1Request(on.v1, 'PUT', '/api/v1/cloud-defender/1', { token: DEMO_ADMIN_KEY, body: {} })).json as any;
      expect(read.updateWebProtectionRecord.webProtectionRecord).toEqual({ id: '1', email: v1Record.data.email, endpoint: v1Record.data.endpoint });
      const badEmail = errorsOf(await call(client, 'EditRecord', { id: '1', input: { email: 'not-an-address' } }));
      expect(badEmail[0]!.extensions.code).toBe('BAD_USER_INPUT');
      const removed = dataOf(await call(client, 'RemoveRecord', { id: '1' }));
      expect(removed.deleteWebProtectionRecord.webProtectionRecord).toEqual({ id: '1', fqdn: v1Record.data.fqdn });
      const after = await v1Request(on.v1, 'PUT', '/api/v1/cloud-defender/1', { token: DEMO_ADMIN_KEY, body: {} });
      expect(after.status).toBe(404);
      const again = errorsOf(await call(client, 'RemoveRecord', { id: '1' }));
      expect(again[0]!.extensions.code).toBe('NOT_FOUND');
      await client.close();
    } finally {
      await on.close();
    }
  }, 60_000);

  const startWith = async (env: Record<string, string>) => {
    const config = parseGatewayConfig({ MCP: '1', LOG_LEVEL: 'silent', ...env });
    const gateway = await startGateway({ ...config, port: 0, upstreamUrl: 'http://127.0.0.1:9' });
    await gateway.close();
  };

  it.each([
    ['an unnamed operation', '{ protectionDevices { totalCount } }', /bad\.graphql:1: an operation without a name cannot be a tool/],
    ['an invalid operation', 'query Broken { protectionDevices { nope } }', /bad\.graphql:1: operation "Broken" is invalid: Cannot query field "nope"/],
    ['a subscription', 'subscription Tail($id: ID!) { trafficLogEntryAdded(deviceId: $id) { id } }', /"Tail" is a subscription/],
    ['a syntax error', 'query Half {', /bad\.graphql: Syntax Error/],
    ['a name given twice', 'query Twice { protectionDevices { totalCount } }\nquery Twice { protectionDevices { totalCount } }', /bad\.graphql:2: operation "Twice" is defined twice/],
  ])('%s stops the start with one line naming it', async (_case, text, message) => {
    const dir = operationsFolder({ 'bad.graphql': text });
    try {
      const error = await startWith({ MCP_OPERATIONS: join(dir, 'bad.graphql') }).then(() => undefined, (e: Error) => e);
      expect(error?.name).toBe('ConfigError');
      expect(error?.message).toMatch(/^MCP_OPERATIONS: /);
      expect(error?.message).toMatch(message);
      expect(error?.message).not.toContain('\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a missing file stops the start; MCP_OPERATIONS without MCP=1 is a configuration error', async () => {
    await expect(startWith({ MCP_OPERATIONS: '/nonexistent/ops.graphql' })).rejects.toThrow(/^MCP_OPERATIONS: cannot read "\/nonexistent\/ops\.graphql" \(ENOENT\)$/);
    expect(() => parseGatewayConfig({ MCP_OPERATIONS: 'ops.graphql' })).toThrow(/set MCP=1/);
    expect(parseGatewayConfig({}).mcp).toBeUndefined();
  });

  it('with trusted documents enforced, only trusted operations are tools', async () => {
    const { createHash } = await import('node:crypto');
    const trustedText = 'query OneDevice($id: ID!) {\n  protectionDevice(id: $id) {\n    id\n    deviceId\n  }\n}';
    const dir = operationsFolder({
      'manifest.json': JSON.stringify({ [`sha256:${createHash('sha256').update(trustedText).digest('hex')}`]: trustedText }),
      'ops.graphql': QUERY,
      'more.graphql': 'query Other { protectionDevices { totalCount } }',
    });
    try {
      const enforce = { TRUSTED_DOCUMENTS: join(dir, 'manifest.json'), TRUSTED_DOCUMENTS_MODE: 'enforce' };
      await expect(startWith({ ...enforce, MCP_OPERATIONS: join(dir, 'more.graphql') })).rejects.toThrow(/"Other" is not a trusted document/);
      const stack = await startStack({
        gateway: { ...parseGatewayConfig(enforce), mcp: { operations: join(dir, 'ops.graphql'), allowMutations: false } },
      });
      try {
        const client = await connect(stack);
        const data = dataOf(await call(client, 'OneDevice', { id: '1' }));
        expect(data.protectionDevice.id).toBe('1');
        await client.close();
      } finally {
        await stack.close();
      }
      // The default set, untrusted here, is left out rather than stopping the start.
      const defaults = await startStack({ gateway: { ...parseGatewayConfig(enforce), ...MCP_ON } });
      try {
        const client = await connect(defaults);
        expect((await client.listTools()).tools).toEqual([]);
        await client.close();
      } finally {
        await defaults.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
