// Signed-in users over HTTP (graphql.md, "Signed-in users"): a real identity provider
// (oidc-provider) issues access tokens; the gateway checks each once, acts upstream with a key only
// it holds, and decides scopes and the organization boundary before any upstream call. Every
// refusal is counted at the upstream: nothing reaches it.
import { generateSecret, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { TEST_KEYS } from '../../helpers/gateway.ts';
import { startIdentityProvider } from '../../helpers/identity-provider.ts';
import { startSignedInStack, writeCredentials, type SignedInStack } from '../../helpers/signed-in.ts';

const FRAMEWORKS = '{ securityFrameworks(organizationId: "1") { totalCount } }';
const FRAMEWORKS_AND_DEVICES = '{ securityFrameworks(organizationId: "1") { totalCount } protectionDevices(first: 2) { totalCount } }';

let stack: SignedInStack;

beforeAll(async () => {
  stack = await startSignedInStack();
});

afterAll(async () => {
  await stack?.close();
});

function keysUsedUpstream(): string[] {
  return [...new Set(stack.proxy.calls.map((call) => String(call.headers['x-service-token'])))];
}

describe('a signed-in user', () => {
  it('acts upstream with its organization’s key, which it never held', async () => {
    const token = await stack.token('org1', ['frameworks:read']);
    stack.proxy.reset();
    const response = await stack.send(FRAMEWORKS, token);
    expect(response.status, response.text).toBe(200);
    expect(response.errors).toBeUndefined();
    expect(response.data).toEqual({ securityFrameworks: { totalCount: expect.any(Number) } });
    expect(keysUsedUpstream()).toEqual([TEST_KEYS.org1]);
  });

  it('takes the organization claim as a string, a number or an array of one', async () => {
    for (const [machine, key] of [['org2', TEST_KEYS.org2], ['org1Array', TEST_KEYS.org1]] as const) {
      const token = await stack.token(machine, ['devices:read']);
      stack.proxy.reset();
      const response = await stack.send('{ protectionDevices(first: 1) { totalCount } }', token);
      expect(response.errors, response.text).toBeUndefined();
      expect(keysUsedUpstream()).toEqual([key]);
    }
  });

  it('is FORBIDDEN, before any upstream call, with a token naming no organization, several, or one without a key', async () => {
    for (const machine of ['none', 'several', 'unknown'] as const) {
      const token = await stack.token(machine, ['frameworks:read']);
      stack.proxy.reset();
      const response = await stack.send(FRAMEWORKS, token);
      expect(response.status, machine).toBe(403);
      expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
      expect(stack.proxy.calls).toEqual([]);
    }
  });
});

describe('every refusal is HTTP 401 with a Bearer challenge, and reaches nothing upstream', () => {
  const cases: [string, () => Promise<string | null>][] = [
    ['no token', async () => null],
    ['an expired token', async () => stack.idp.sign({ ...stack.idp.baseClaims(), exp: Math.floor(Date.now() / 1000) - 120 })],
    ['a token not valid yet', async () => stack.idp.sign({ ...stack.idp.baseClaims(), nbf: Math.floor(Date.now() / 1000) + 120 })],
    ['a token for another audience', async () => stack.idp.sign({ ...stack.idp.baseClaims(), aud: 'https://another-api.test' })],
    ['a token of another issuer', async () => stack.idp.sign({ ...stack.idp.baseClaims(), iss: 'https://impostor.test' })],
    ['a token without exp', async () => stack.idp.sign(Object.fromEntries(Object.entries(stack.idp.baseClaims()).filter(([name]) => name !== 'exp')))],
    ['alg: none', async () => new UnsecuredJWT(stack.idp.baseClaims()).encode()],
    [
      'HS256 with a secret',
      async () => new SignJWT(stack.idp.baseClaims()).setProtectedHeader({ alg: 'HS256' }).sign(await generateSecret('HS256')),
    ],
    ['a forged signature (the provider’s kid, another key)', async () => stack.idp.forge(stack.idp.baseClaims())],
    ['a token whose signature was tampered with', async () => {
      const token = await stack.idp.sign(stack.idp.baseClaims());
      const [header, , signature] = token.split('.');
      const payload = Buffer.from(JSON.stringify({ ...stack.idp.baseClaims(), scope: 'admin' })).toString('base64url');
      return `${header}.${payload}.${signature}`;
    }],
    ['an upstream key as a bearer', async () => TEST_KEYS.org1],
  ];

  it.each(cases)('%s', async (_name, make) => {
    const bearer = await make();
    stack.proxy.reset();
    const response = await stack.send(FRAMEWORKS_AND_DEVICES, bearer);
    expect(response.status, response.text).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    expect(response.data).toBeUndefined();
    expect(stack.proxy.calls).toEqual([]);
    if (bearer !== null) expect(response.text).not.toContain(bearer);
  });

  it('an upstream key as X-Service-Token, in oidc mode', async () => {
    stack.proxy.reset();
    const response = await stack.send(FRAMEWORKS, null, {}, { 'x-service-token': TEST_KEYS.admin });
    expect(response.status).toBe(401);
    expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    expect(stack.proxy.calls).toEqual([]);
  });
});

describe('scopes and the organization boundary, decided before any upstream call', () => {
  it('nulls a field whose scopes the token lacks, with FORBIDDEN and requiredScopes; the rest runs', async () => {
    const token = await stack.token('org1', ['devices:read']);
    stack.proxy.reset();
    const response = await stack.send(FRAMEWORKS_AND_DEVICES, token);
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ securityFrameworks: null, protectionDevices: { totalCount: expect.any(Number) } });
    expect(response.errors).toEqual([
      expect.objectContaining({ path: ['securityFrameworks'], extensions: { code: 'FORBIDDEN', requiredScopes: [['frameworks:read']] } }),
    ]);
    // Only the devices' call: none for the refused field.
    expect(stack.proxy.calls.length).toBeGreaterThan(0);
    expect(stack.proxy.calls.every((call) => !call.path.includes('security-frameworks'))).toBe(true);
  });

  it('checks nested fields and mutations too', async () => {
    const token = await stack.token('org1', ['devices:read']);
    stack.proxy.reset();
    const nested = await stack.send('{ protectionDevices(first: 1) { nodes { id traffic(first: 1) { totalCount } } } }', token);
    expect(nested.errors?.map((error) => [error.extensions?.code, error.extensions?.requiredScopes])).toEqual([['FORBIDDEN', [['traffic:read']]]]);
    expect(stack.proxy.calls.every((call) => !call.path.includes('traffic'))).toBe(true);
    stack.proxy.reset();
    const mutation = await stack.send('mutation { deleteSecurityFramework(organizationId: "1", id: "1") { securityFramework { id } } }', token);
    expect(mutation.data).toEqual({ deleteSecurityFramework: null });
    expect(mutation.errors?.[0]?.extensions).toEqual({ code: 'FORBIDDEN', requiredScopes: [['frameworks:write']] });
    expect(stack.proxy.calls).toEqual([]);
  });

  it('refuses another organization’s data with FORBIDDEN, before any upstream call', async () => {
    const token = await stack.token('org1', ['frameworks:read', 'devices:read', 'web-protection:write']);
    stack.proxy.reset();
    const response = await stack.send(
      `{ securityFrameworks(organizationId: "2") { totalCount } protectionDevices(first: 1, filter: { organizationId: "2" }) { totalCount } }`,
      token,
    );
    expect(response.data).toEqual({ securityFrameworks: null, protectionDevices: null });
    expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN', 'FORBIDDEN']);
    const moved = await stack.send('mutation { updateWebProtectionRecord(id: "1", input: { organizationId: "2" }) { webProtectionRecord { id } } }', token);
    expect(moved.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
    expect(stack.proxy.calls).toEqual([]);
  });

  it('scope admin has every scope and every organization, and acts with the admin key', async () => {
    const token = await stack.token('none', ['admin']);
    stack.proxy.reset();
    const response = await stack.send('{ a: securityFrameworks(organizationId: "1") { totalCount } b: securityFrameworks(organizationId: "2") { totalCount } protectionDevices(first: 1) { totalCount } }', token);
    expect(response.errors, response.text).toBeUndefined();
    expect(keysUsedUpstream()).toEqual([TEST_KEYS.admin]);
  });
});

describe('audit', () => {
  it('writes one audit line per mutation, whatever its outcome, with nothing of the token but sub', async () => {
    const token = await stack.token('org1', ['frameworks:write', 'frameworks:read']);
    const before = stack.logs.length;
    const created = await stack.send(
      'mutation { createSecurityFramework(organizationId: "1", input: { title: "Audited", controls: [] }) { id } }',
      token,
    );
    expect(created.errors, created.text).toBeUndefined();
    const id = (created.data as { createSecurityFramework: { id: string } }).createSecurityFramework.id;
    const missing = await stack.send('mutation { deleteSecurityFramework(organizationId: "1", id: "999999") { securityFramework { id } } }', token);
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const refused = await stack.send('mutation { deleteWebProtectionRecord(id: "1") { webProtectionRecord { id } } }', token);
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const audit = stack.logs.slice(before).map((line) => JSON.parse(line)).filter((line) => line.msg === 'audit');
    expect(audit.map(({ sub, organization, credential, operation, targets, outcome }) => ({ sub, organization, credential, operation, targets, outcome }))).toEqual([
      { sub: 'console-org1', organization: '1', credential: 'token', operation: 'createSecurityFramework', targets: { organizationId: '1', id: String(id) }, outcome: 'OK' },
      { sub: 'console-org1', organization: '1', credential: 'token', operation: 'deleteSecurityFramework', targets: { organizationId: '1', id: '999999' }, outcome: 'NOT_FOUND' },
      { sub: 'console-org1', organization: '1', credential: 'token', operation: 'deleteWebProtectionRecord', targets: { id: '1' }, outcome: 'FORBIDDEN' },
    ]);
  });
});

describe('UPSTREAM_CREDENTIALS', () => {
  it('a bad file stops the start with one line naming it, and no key in it', () => {
    const env = { AUTH_MODE: 'oidc', OIDC_ISSUER: stack.idp.issuer, OIDC_AUDIENCE: stack.idp.audience };
    expect(() => parseGatewayConfig({ ...env, UPSTREAM_CREDENTIALS: '/nonexistent/credentials.json' })).toThrow(/^UPSTREAM_CREDENTIALS: cannot read "\/nonexistent\/credentials.json" \(ENOENT\)$/);
    const bad = `${stack.credentialsFile}.bad`;
    writeCredentials(bad, { '1': '' });
    let message = '';
    try {
      parseGatewayConfig({ ...env, UPSTREAM_CREDENTIALS: bad });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^UPSTREAM_CREDENTIALS: ".*" breaks the format .* at organizations\.1 /);
    expect(message).not.toContain('\n');
    expect(message).not.toContain(TEST_KEYS.admin);
    expect(() => parseGatewayConfig({ AUTH_MODE: 'oidc', OIDC_AUDIENCE: 'x', UPSTREAM_CREDENTIALS: bad })).toThrow(/^OIDC_ISSUER: AUTH_MODE=oidc needs/);
    expect(() => parseGatewayConfig({ AUTH_MODE: 'tokens' })).toThrow(/^AUTH_MODE: expected key, oidc or both/);
  });

  it('is read again on SIGHUP: a rotated key is used from the next request, a bad file keeps the old one', async () => {
    const token = await stack.token('org1', ['frameworks:read']);
    try {
      // Organization 1 now acts with the admin key (as good as any to tell the file was read).
      writeCredentials(stack.credentialsFile, { '1': TEST_KEYS.admin, '2': TEST_KEYS.org2 });
      process.emit('SIGHUP', 'SIGHUP');
      stack.proxy.reset();
      expect((await stack.send(FRAMEWORKS, token)).errors).toBeUndefined();
      expect(keysUsedUpstream()).toEqual([TEST_KEYS.admin]);
      writeCredentials(stack.credentialsFile, { '1': '' });
      process.emit('SIGHUP', 'SIGHUP');
      stack.proxy.reset();
      expect((await stack.send(FRAMEWORKS, token)).errors).toBeUndefined();
      expect(keysUsedUpstream()).toEqual([TEST_KEYS.admin]);
      expect(stack.logs.some((line) => line.includes('UPSTREAM_CREDENTIALS not read again'))).toBe(true);
    } finally {
      writeCredentials(stack.credentialsFile);
      process.emit('SIGHUP', 'SIGHUP');
    }
  });
});

describe('AUTH_MODE=both', () => {
  it('takes a JWT as a token and anything else as a key', async () => {
    const both = await startSignedInStack({ mode: 'both', idpInstance: stack.idp });
    try {
      const token = await stack.token('org2', ['frameworks:read']);
      both.proxy.reset();
      expect((await both.send('{ securityFrameworks(organizationId: "2") { totalCount } }', token)).errors).toBeUndefined();
      expect((await both.send('{ securityFrameworks(organizationId: "1") { totalCount } }', TEST_KEYS.org1)).errors).toBeUndefined();
      expect((await both.send('{ securityFrameworks(organizationId: "1") { totalCount } }', null, {}, { 'x-service-token': TEST_KEYS.org1 })).errors).toBeUndefined();
      expect([...new Set(both.proxy.calls.map((call) => call.headers['x-service-token']))]).toEqual([TEST_KEYS.org2, TEST_KEYS.org1]);
      // A JWT is checked as a token, never passed on as a key.
      both.proxy.reset();
      const forged = await both.send(FRAMEWORKS, await stack.idp.forge(stack.idp.baseClaims()));
      expect(forged.status).toBe(401);
      const none = await both.send(FRAMEWORKS, null);
      expect(none.status).toBe(401);
      expect(both.proxy.calls).toEqual([]);
    } finally {
      await both.close();
    }
  });
});

describe('the identity provider', () => {
  it('rotates its keys without a restart, and a flood of unknown kids makes one fetch at most', { timeout: 180_000 }, async () => {
    const own = await startSignedInStack();
    try {
      // The gateway fetched the keys at start; a kid it lacks makes a fetch once 30 s have passed.
      const started = Date.now();
      expect((await own.send(FRAMEWORKS, await own.token('org1', ['frameworks:read']))).errors).toBeUndefined();
      await own.idp.rotateKeys();
      const rotated = await own.token('org1', ['frameworks:read']);
      const flood = await Promise.all(Array.from({ length: 40 }, (_, index) => own.idp.forge(own.idp.baseClaims(), `unknown-kid-${index}`)));
      // Within 30 s of the last fetch, an unknown kid is refused without one.
      const early = own.idp.fetches.keys;
      expect((await own.send(FRAMEWORKS, flood[0]!)).status).toBe(401);
      expect(own.idp.fetches.keys).toBe(early);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 31_000 - Date.now())));
      own.proxy.reset();
      const before = own.idp.fetches.keys;
      const answers = await Promise.all([...flood.map((token) => own.send(FRAMEWORKS, token)), own.send(FRAMEWORKS, rotated)]);
      expect(answers.slice(0, -1).map((answer) => answer.status)).toEqual(flood.map(() => 401));
      expect(answers.at(-1)!.errors, answers.at(-1)!.text).toBeUndefined();
      expect(own.idp.fetches.keys - before).toBe(1);
      expect(own.proxy.calls.length).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('down at start: the gateway serves, says so once and in /readyz, and answers tokens 503 until it is back', { timeout: 60_000 }, async () => {
    const idp = await startIdentityProvider({ machines: [{ clientId: 'm', clientSecret: 'machine-secret-m-0a1b2c3d4e', organization: '1' }] });
    const token = await idp.machineToken('m', ['frameworks:read']);
    await idp.stop();
    const down = await startSignedInStack({ idpInstance: idp });
    try {
      await expect.poll(() => down.logs.filter((line) => line.includes('the identity provider (OIDC_ISSUER) cannot be reached')).length).toBe(1);
      const ready = await fetch(new URL('/readyz', down.gateway.url));
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ identityProvider: expect.stringMatching(/^unreachable/) });
      down.proxy.reset();
      const refused = await down.send(FRAMEWORKS, token);
      expect(refused.status).toBe(503);
      expect(refused.errors?.map((error) => error.extensions?.code)).toEqual(['IDENTITY_PROVIDER_UNAVAILABLE']);
      // A token that fails its own checks is still a 401, provider or not.
      expect((await down.send(FRAMEWORKS, null)).status).toBe(401);
      expect(down.proxy.calls).toEqual([]);
      await idp.start();
      await expect.poll(async () => (await down.send(FRAMEWORKS, token)).status, { timeout: 15_000, interval: 500 }).toBe(200);
      const back = await fetch(new URL('/readyz', down.gateway.url));
      expect(await back.json()).toMatchObject({ status: 'ready', identityProvider: 'reachable' });
      expect(down.logs.filter((line) => line.includes('the identity provider (OIDC_ISSUER) cannot be reached')).length).toBe(1);
    } finally {
      await down.close();
      await idp.close();
    }
  });
});
