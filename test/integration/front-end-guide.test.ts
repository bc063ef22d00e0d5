// The front-end guide (docs/front-end.md), run as written: its client-preset codegen config
// (examples/front-end/codegen.ts) generates typed documents from the printed schema and from a
// running gateway by URL with a key, the sample front-end code type-checks against them (custom
// scalars typed, not `unknown`), and its typed operation runs against the gateway.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../src/gateway/config.ts';
import { postGraphQL, startGatewayOn, startStack, TEST_KEYS, type Stack } from '../helpers/gateway.ts';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CODEGEN = join(REPO, 'node_modules', '.bin', 'graphql-codegen');
const TSC = join(REPO, 'node_modules', '.bin', 'tsc');
// Inside the repository's node_modules, so that the example resolves the packages it imports.
const CACHE = join(REPO, 'node_modules', '.cache');

/** Every file codegen wrote under src/gql, by name. */
function generated(dir: string): Record<string, string> {
  const gql = join(dir, 'src', 'gql');
  return Object.fromEntries(readdirSync(gql, { recursive: true, encoding: 'utf8' }).filter((name) => name.includes('.')).sort().map((name) => [name, readFileSync(join(gql, name), 'utf8')]));
}

describe('the front-end guide', () => {
  let dir: string;
  let stack: Stack;
  /** What the printed schema generated, which the sample type-checked against. */
  let fromPrinted: Record<string, string> = {};

  beforeAll(async () => {
    mkdirSync(CACHE, { recursive: true });
    dir = mkdtempSync(join(CACHE, 'front-end-'));
    cpSync(join(REPO, 'examples', 'front-end'), dir, { recursive: true });
    rmSync(join(dir, 'src', 'gql'), { recursive: true, force: true });
    stack = await startStack({ key: TEST_KEYS.admin });
  });

  afterAll(async () => {
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('generates typed documents from the printed schema, and the sample type-checks against them', async () => {
    const env = { ...process.env, GATEWAY_SCHEMA: join(REPO, 'src', 'gateway', 'generated', 'schema.graphql') };
    await run(CODEGEN, ['--config', 'codegen.ts'], { cwd: dir, env, timeout: 120_000 });
    expect(existsSync(join(dir, 'src', 'gql', 'graphql.ts'))).toBe(true);
    await run(TSC, ['-p', 'tsconfig.json'], { cwd: dir, timeout: 120_000 });
    fromPrinted = generated(dir);
  }, 180_000);

  it('generates the same from a running gateway, by URL with the key header', async () => {
    rmSync(join(dir, 'src', 'gql'), { recursive: true, force: true });
    const { GATEWAY_SCHEMA: _unset, ...inherited } = process.env;
    const env = { ...inherited, GATEWAY_URL: stack.gateway.url, GATEWAY_KEY: TEST_KEYS.admin };
    await run(CODEGEN, ['--config', 'codegen.ts'], { cwd: dir, env, timeout: 120_000 });
    // Byte for byte what the printed schema generated: the sample type-checks against these too.
    expect(Object.keys(fromPrinted).length).toBeGreaterThan(0);
    expect(generated(dir)).toEqual(fromPrinted);
  }, 180_000);

  it('runs its operations as trusted documents: the manifest codegen wrote, enforced by the gateway', async () => {
    const manifest = join(dir, 'src', 'gql', 'persisted-documents.json');
    const documents = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, string>;
    const [documentId, text] = Object.entries(documents)[0]!;
    expect(documentId).toMatch(/^sha256:[0-9a-f]{64}$/);
    const config = parseGatewayConfig({ TRUSTED_DOCUMENTS: manifest, TRUSTED_DOCUMENTS_MODE: 'enforce' });
    const enforced = await startGatewayOn(stack.proxy.url, { TRUSTED_DOCUMENTS: manifest, TRUSTED_DOCUMENTS_MODE: 'enforce' });
    try {
      expect(config.trustedDocuments.mode).toBe('enforce');
      const byId = await postGraphQL<{ protectionDevices: { totalCount: number } }>(enforced.gateway.url, { documentId, variables: { first: 2 } }, { 'x-service-token': TEST_KEYS.admin });
      expect(byId.status, byId.text).toBe(200);
      expect(byId.data?.protectionDevices.totalCount).toBeGreaterThan(0);
      const adHoc = await postGraphQL(enforced.gateway.url, { query: '{ protectionDevices(first: 1) { totalCount } }' }, { 'x-service-token': TEST_KEYS.admin });
      expect(adHoc.status).toBe(400);
      expect(adHoc.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_ALLOWED');
      expect(text).toContain('DevicesPage');
    } finally {
      await enforced.close();
    }
  });

  it('runs the typed operation against the gateway from Node', async () => {
    // The example compiles against its own generated code, outside this project's type check.
    const sample = (await import(join(dir, 'src', 'devices.ts'))) as {
      DevicesPage: Parameters<typeof print>[0];
      fetchDevices(url: string, key: string, variables: { first?: number }, query: string): Promise<{ protectionDevices?: { nodes: { deviceId: string }[] } | null }>;
    };
    const result = await sample.fetchDevices(stack.gateway.url, TEST_KEYS.admin, { first: 2 }, print(sample.DevicesPage));
    expect(result.protectionDevices?.nodes).toHaveLength(2);
    expect(typeof result.protectionDevices?.nodes[0]?.deviceId).toBe('string');
  });
});
