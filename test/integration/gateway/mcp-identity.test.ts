// The assistants' endpoint for signed-in users (AUTH_MODE=oidc): the official MCP SDK's client
// with an access token from a real identity provider (oidc-provider) calls the tools, which act
// upstream with the organization's key only the gateway holds, under the token's scopes. Without
// a token, the 401 names the protected resource metadata (RFC 9728), and that document names the
// provider; a refused token reaches nothing upstream.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, TEST_KEYS } from '../../helpers/gateway.ts';
import { startSignedInStack, type SignedInStack } from '../../helpers/signed-in.ts';
import { v1Request } from '../../helpers/v1.ts';

const SEED = { devices: 12, traffic: 200, hotTraffic: 40 };
const DELETE_FRAMEWORK = `# Deletes one of organization 1's security frameworks.
mutation DeleteFramework($id: ID!) {
  deleteSecurityFramework(organizationId: "1", id: $id) {
    securityFramework {
      id
    }
  }
}
`;

let stack: SignedInStack;
let folder: string;

const mcpUrl = () => new URL('/mcp', stack.gateway.url);
const origin = () => new URL(stack.gateway.url).origin;

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'gateway-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A tools/list as a client sends it, with `authorization` (or none). */
function listTools(authorization?: string): Promise<Response> {
  return fetch(mcpUrl(), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}

beforeAll(async () => {
  // The shipped tools, and one mutation to see its audit line.
  folder = mkdtempSync(join(tmpdir(), 'mcp-identity-'));
  copyFileSync(new URL('../../../src/gateway/mcp/default-operations.graphql', import.meta.url), join(folder, 'analysts.graphql'));
  writeFileSync(join(folder, 'delete-framework.graphql'), DELETE_FRAMEWORK);
  stack = await startSignedInStack({ v1: { seedSizes: SEED }, gateway: { mcp: { operations: folder, allowMutations: true } } });
}, 60_000);

afterAll(async () => {
  await stack?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('a signed-in user through the MCP SDK client', () => {
  it('lists the tools and calls one with the organization’s key: the answer is v1’s for that organization', async () => {
    const client = await connect(await stack.token('org1', ['devices:read']));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['DeleteFramework', 'FrameworkEvidenceState', 'LatestDeviceTraffic', 'SearchDeviceTraffic', 'TopMaliciousDevices']);
      stack.proxy.reset();
      const result = await call(client, 'TopMaliciousDevices', { first: 5 });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const data = result.structuredContent as { protectionDevices: { totalCount: number; nodes: { id: string }[] } };
      // The key only the gateway holds, never the client.
      expect([...new Set(stack.proxy.calls.map((upstream) => String(upstream.headers['x-service-token'])))]).toEqual([TEST_KEYS.org1]);
      const v1 = await v1Request(stack.v1, 'GET', '/api/v1/atb?limit=5&order=id', { token: TEST_KEYS.org1 });
      expect(v1.status).toBe(200);
      const v1Body = v1.json as { total: number; data: { id: number }[] };
      expect(v1Body.data.length).toBeGreaterThan(0);
      expect(data.protectionDevices.totalCount).toBe(v1Body.total);
      expect(data.protectionDevices.nodes.map((device) => device.id)).toEqual(v1Body.data.map((device) => String(device.id)));
    } finally {
      await client.close();
    }
  });

  it('a scope the token lacks: isError with FORBIDDEN, and nothing asked upstream', async () => {
    const client = await connect(await stack.token('org1', ['frameworks:read']));
    try {
      stack.proxy.reset();
      const result = await call(client, 'TopMaliciousDevices', { first: 5 });
      expect(result.isError).toBe(true);
      const { errors } = JSON.parse((result.content[0] as { text: string }).text) as { errors: { extensions: { code: string } }[] };
      expect(errors.map((error) => error.extensions.code)).toContain('FORBIDDEN');
      expect(stack.proxy.calls).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('a mutation tool writes the audit line with the user’s sub', async () => {
    const client = await connect(await stack.token('org1', ['frameworks:write', 'frameworks:read']));
    try {
      const before = stack.logs.length;
      const result = await call(client, 'DeleteFramework', { id: '999999' });
      expect(result.isError).toBe(true);
      expect((result.content[0] as { text: string }).text).toContain('NOT_FOUND');
      const audit = stack.logs.slice(before).map((line) => JSON.parse(line)).filter((line) => line.msg === 'audit');
      expect(audit.map(({ sub, organization, credential, operation, outcome }) => ({ sub, organization, credential, operation, outcome }))).toEqual([
        { sub: 'console-org1', organization: '1', credential: 'token', operation: 'deleteSecurityFramework', outcome: 'NOT_FOUND' },
      ]);
    } finally {
      await client.close();
    }
  });
});

describe('signing in: the 401 and the protected resource metadata (RFC 9728)', () => {
  it('no token: 401 whose challenge names the metadata, which names the issuer, as the SDK’s client reads them', async () => {
    stack.proxy.reset();
    const response = await listTools();
    expect(response.status).toBe(401);
    const metadataUrl = `${origin()}/.well-known/oauth-protected-resource`;
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/sign in with the identity provider/);
    expect(extractWWWAuthenticateParams(response).resourceMetadataUrl?.href).toBe(metadataUrl);

    const expected = {
      resource: mcpUrl().href,
      authorization_servers: [stack.idp.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: expect.arrayContaining(['devices:read', 'frameworks:read', 'traffic:read']),
    };
    const metadata = await discoverOAuthProtectedResourceMetadata(mcpUrl(), { resourceMetadataUrl: metadataUrl });
    expect(metadata).toEqual(expected);
    expect(metadata.scopes_supported).not.toContain('admin');
    // RFC 9728's own address, beside the resource's path, as a client without the challenge finds it.
    expect(await discoverOAuthProtectedResourceMetadata(mcpUrl())).toEqual(expected);
    const suffixed = await fetch(`${origin()}/.well-known/oauth-protected-resource/mcp`);
    expect(suffixed.headers.get('access-control-allow-origin')).toBe('*');
    expect(await suffixed.json()).toEqual(expected);
    // The issuer it names is the provider that signs people in.
    expect(((await (await fetch(`${stack.idp.issuer}/.well-known/openid-configuration`)).json()) as { issuer: string }).issuer).toBe(stack.idp.issuer);
    expect(stack.proxy.calls).toEqual([]);
  });

  it('an expired, a forged token, or an API key: 401 with the token’s error and the metadata, and nothing upstream', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases = {
      expired: await stack.idp.sign({ ...stack.idp.baseClaims('user-1', '1', ['devices:read']), exp: now - 120 }),
      forged: await stack.idp.forge(stack.idp.baseClaims('user-1', '1', ['devices:read'])),
      key: TEST_KEYS.org1,
    };
    for (const [name, credential] of Object.entries(cases)) {
      stack.proxy.reset();
      const response = await listTools(`Bearer ${credential}`);
      expect(response.status, name).toBe(401);
      const challenge = response.headers.get('www-authenticate') ?? '';
      expect(challenge, name).toMatch(/^Bearer error="invalid_token", error_description="[^"]*", resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource"$/);
      expect(JSON.stringify(await response.json())).not.toContain(credential);
      expect(stack.proxy.calls, name).toEqual([]);
    }
    const client = new Client({ name: 'gateway-tests', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { authorization: `Bearer ${cases.forged}` } } }))).rejects.toMatchObject({ code: 401 });
    expect(stack.proxy.calls).toEqual([]);
  });

  it('a token naming no organization the gateway holds a key for: 403, nothing upstream', async () => {
    stack.proxy.reset();
    const response = await listTools(`Bearer ${await stack.token('unknown', ['devices:read'])}`);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(stack.proxy.calls).toEqual([]);
  });
});

describe('AUTH_MODE=both', () => {
  let both: SignedInStack;

  beforeAll(async () => {
    both = await startSignedInStack({
      mode: 'both',
      v1: { seedSizes: SEED },
      gateway: { mcp: { operations: undefined, allowMutations: false } },
    });
  }, 60_000);

  afterAll(async () => {
    await both?.close();
  });

  it('takes an API key or a token on /mcp, as on /graphql; with neither, the 401 names the metadata', async () => {
    const credentials: Record<string, string>[] = [{ 'x-service-token': TEST_KEYS.org2 }, { authorization: `Bearer ${await both.token('org2', ['devices:read'])}` }];
    for (const headers of credentials) {
      const client = new Client({ name: 'gateway-tests', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', both.gateway.url), { requestInit: { headers } }));
      try {
        both.proxy.reset();
        const result = await call(client, 'TopMaliciousDevices', { first: 2 });
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        expect([...new Set(both.proxy.calls.map((upstream) => String(upstream.headers['x-service-token'])))]).toEqual([TEST_KEYS.org2]);
      } finally {
        await client.close();
      }
    }
    const response = await fetch(new URL('/mcp', both.gateway.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${new URL(both.gateway.url).origin}/.well-known/oauth-protected-resource"`);
  });
});

describe('AUTH_MODE=key', () => {
  it('serves no protected resource metadata: there is no provider to sign in with', async () => {
    const keyed = await startStack({ v1: { seedSizes: SEED }, gateway: { mcp: { operations: undefined, allowMutations: false } } });
    try {
      expect((await fetch(new URL('/.well-known/oauth-protected-resource', keyed.gateway.url))).status).toBe(404);
      const response = await fetch(new URL('/mcp', keyed.gateway.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    } finally {
      await keyed.close();
    }
  });
});

describe('throttling', () => {
  it('throttles each signed-in user in a bucket of their own, though both act with one organization’s key', async () => {
    const throttled = await startSignedInStack({ v1: { seedSizes: SEED }, gateway: { mcp: { operations: undefined, allowMutations: false }, rateLimit: { calls: 3, restorePerSecond: 0.01 } } });
    const clients: Client[] = [];
    try {
      const alice = await throttled.idp.sign(throttled.idp.baseClaims('alice', '1', ['devices:read', 'traffic:read']));
      const bob = await throttled.idp.sign(throttled.idp.baseClaims('bob', '1', ['devices:read', 'traffic:read']));
      for (const token of [alice, bob]) {
        const client = new Client({ name: 'gateway-tests', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', throttled.gateway.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
        clients.push(client);
      }
      const codeOf = (result: CallToolResult) => (result.isError ? JSON.parse((result.content[0] as { text: string }).text).errors[0].extensions.code : 'ok');
      const codes: string[] = [];
      for (let attempt = 0; attempt < 8 && codes.at(-1) !== 'RATE_LIMITED'; attempt++) {
        codes.push(codeOf(await call(clients[0]!, 'TopMaliciousDevices', { first: 2, services: [`alice-${attempt}`] })));
      }
      expect(codes[0]).toBe('ok');
      expect(codes.at(-1)).toBe('RATE_LIMITED');
      throttled.proxy.reset();
      expect(codeOf(await call(clients[1]!, 'TopMaliciousDevices', { first: 2, services: ['bob'] }))).toBe('ok');
      expect(new Set(throttled.proxy.calls.map((upstream) => upstream.headers['x-service-token']))).toEqual(new Set([TEST_KEYS.org1]));
    } finally {
      for (const client of clients) await client.close();
      await throttled.close();
    }
  }, 60_000);
});
