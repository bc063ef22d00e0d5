// Trusted documents: a manifest in the client preset's format (hash `sha256:<hex>` to document),
// documents sent by `documentId` (POST and GET) or by an automatic persisted query's hash, the
// `enforce` and `log` modes, and manifests that stop the start. Over HTTP against the reference
// service.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { startGateway } from '../../../src/gateway/server.ts';
import { postGraphQL, startGatewayOn, startStack, TEST_KEYS, type GatewayOn, type Stack } from '../../helpers/gateway.ts';

const TRUSTED = 'query TrustedCount { protectionDevices(first: 1) { totalCount } }';
const HASH = createHash('sha256').update(TRUSTED).digest('hex');
const OTHER = 'query Other { protectionDevices(first: 2) { totalCount } }';
const KEY = { 'x-service-token': TEST_KEYS.admin };

const dir = mkdtempSync(join(tmpdir(), 'trusted-'));
function manifestFile(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
const MANIFEST = manifestFile('persisted-documents.json', JSON.stringify({ [`sha256:${HASH}`]: TRUSTED }));

let stack: Stack;
let enforced: GatewayOn;
let logged: GatewayOn;

beforeAll(async () => {
  stack = await startStack({ key: TEST_KEYS.admin });
  enforced = await startGatewayOn(stack.proxy.url, { TRUSTED_DOCUMENTS: MANIFEST, TRUSTED_DOCUMENTS_MODE: 'enforce' });
  logged = await startGatewayOn(stack.proxy.url, { TRUSTED_DOCUMENTS: MANIFEST, TRUSTED_DOCUMENTS_MODE: 'log' });
});

afterAll(async () => {
  await enforced?.close();
  await logged?.close();
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('TRUSTED_DOCUMENTS_MODE=enforce', () => {
  it('runs a trusted document sent by documentId, by POST and by GET', async () => {
    const posted = await postGraphQL<{ protectionDevices: { totalCount: number } }>(enforced.gateway.url, { documentId: `sha256:${HASH}` }, KEY);
    expect(posted.status, posted.text).toBe(200);
    expect(posted.data?.protectionDevices.totalCount).toBeGreaterThan(0);
    const got = await fetch(`${enforced.gateway.url}?documentId=sha256:${HASH}`, { headers: { ...KEY, 'apollo-require-preflight': 'true' } });
    expect(got.status).toBe(200);
    expect(((await got.json()) as { data: unknown }).data).toEqual(posted.data);
  });

  it("runs one sent by its automatic persisted query hash without the text, or with the text itself", async () => {
    const byHash = await postGraphQL(enforced.gateway.url, { extensions: { persistedQuery: { version: 1, sha256Hash: HASH } } }, KEY);
    expect(byHash.status, byHash.text).toBe(200);
    const byText = await postGraphQL(enforced.gateway.url, { query: TRUSTED }, KEY);
    expect(byText.status, byText.text).toBe(200);
  });

  it('refuses any other document before any upstream call', async () => {
    stack.proxy.reset();
    for (const body of [{ query: OTHER }, { query: OTHER, extensions: { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(OTHER).digest('hex') } } }]) {
      const refused = await postGraphQL(enforced.gateway.url, body, KEY);
      expect(refused.status).toBe(400);
      expect(refused.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_ALLOWED');
      expect(refused.errors?.[0]?.message).toMatch(/documentId/);
    }
    const unknown = await postGraphQL(enforced.gateway.url, { documentId: `sha256:${'0'.repeat(64)}` }, KEY);
    expect(unknown.status).toBe(400);
    expect(unknown.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(stack.proxy.calls).toEqual([]);
  });
});

describe('TRUSTED_DOCUMENTS_MODE=log', () => {
  it('runs any other document and logs its hash and operation name, once', async () => {
    for (let i = 0; i < 2; i++) expect((await postGraphQL(logged.gateway.url, { query: OTHER, operationName: 'Other' }, KEY)).status).toBe(200);
    const lines = logged.logs.filter((line) => line.includes('untrusted document'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).document).toEqual({ hash: `sha256:${createHash('sha256').update(OTHER).digest('hex')}`, operationName: 'Other' });
    expect((await postGraphQL(logged.gateway.url, { documentId: `sha256:${HASH}` }, KEY)).status).toBe(200);
  });
});

describe('a bad manifest', () => {
  const cases: [string, string, RegExp][] = [
    ['missing', join(dir, 'nope.json'), /^TRUSTED_DOCUMENTS: cannot read ".*nope\.json" \(ENOENT\)$/],
    ['not JSON', manifestFile('bad.json', '{ not json'), /^TRUSTED_DOCUMENTS: ".*bad\.json" is not JSON$/],
    ['not an object', manifestFile('array.json', '["query { a }"]'), /is not a JSON object of hash to document/],
    ['a wrong hash', manifestFile('wrong.json', JSON.stringify({ [`sha256:${HASH}`]: OTHER })), /is not the SHA-256 of its document$/],
  ];
  it.each(cases)('stops the start with one line naming TRUSTED_DOCUMENTS: %s', async (_name, path, message) => {
    const config = parseGatewayConfig({ TRUSTED_DOCUMENTS: path, TRUSTED_DOCUMENTS_MODE: 'enforce' });
    const error = await startGateway({ ...config, port: 0, upstreamUrl: stack.proxy.url, logLevel: 'silent' }).then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(error?.message).toMatch(message);
    expect(error?.message).not.toContain('\n');
  });

  it('refuses a mode without a manifest, and an unknown mode', () => {
    expect(() => parseGatewayConfig({ TRUSTED_DOCUMENTS_MODE: 'enforce' })).toThrow('TRUSTED_DOCUMENTS_MODE: enforce needs TRUSTED_DOCUMENTS');
    expect(() => parseGatewayConfig({ TRUSTED_DOCUMENTS: MANIFEST, TRUSTED_DOCUMENTS_MODE: 'strict' })).toThrow('TRUSTED_DOCUMENTS_MODE: expected off, log or enforce, got "strict"');
  });
});
