// A gateway in front of the reference service that takes signed-in users (AUTH_MODE=oidc or both),
// with a real identity provider (identity-provider.ts) and an UPSTREAM_CREDENTIALS file holding the
// test organizations' keys: what the identity suites share.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1ServiceOptions } from 'reference-service/testing';
import { parseGatewayConfig, type GatewayConfig } from '../../src/gateway/config.ts';
import { postGraphQL, startStack, TEST_KEYS, type GraphQLResponse, type Stack } from './gateway.ts';
import { startIdentityProvider, type IdentityProviderOptions, type TestIdentityProvider } from './identity-provider.ts';

/** Machine clients (client credentials), one per kind of organization claim. */
export const MACHINES = {
  org1: { clientId: 'console-org1', clientSecret: 'machine-secret-org1-5d1c7f0a9b', organization: '1' },
  /** The claim as a number. */
  org2: { clientId: 'console-org2', clientSecret: 'machine-secret-org2-8e2b4c6d1a', organization: 2 },
  /** As an array of one. */
  org1Array: { clientId: 'console-org1-array', clientSecret: 'machine-secret-org1a-3f9e7d5c', organization: ['1'] },
  none: { clientId: 'console-none', clientSecret: 'machine-secret-none-7a6b5c4d3e', organization: undefined },
  several: { clientId: 'console-several', clientSecret: 'machine-secret-several-1b2c3d', organization: ['1', '2'] },
  /** An organization the credentials file holds no key for. */
  unknown: { clientId: 'console-unknown', clientSecret: 'machine-secret-unknown-9f8e7d', organization: '3' },
} as const;

export interface SignedInStack extends Stack {
  idp: TestIdentityProvider;
  credentialsFile: string;
  /** A client-credentials token of `machine` with `scopes`. */
  token(machine: keyof typeof MACHINES, scopes: string[]): Promise<string>;
  /** POSTs `query` with `Authorization: Bearer <bearer>` (null: no credential). */
  send(query: string, bearer: string | null, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<GraphQLResponse<any>>;
}

export function writeCredentials(file: string, organizations: Record<string, string> = { '1': TEST_KEYS.org1, '2': TEST_KEYS.org2 }, admin: string | undefined = TEST_KEYS.admin): void {
  writeFileSync(file, JSON.stringify({ organizations, ...(admin ? { admin } : {}) }));
}

export async function startSignedInStack(
  options: {
    mode?: 'oidc' | 'both';
    env?: Record<string, string>;
    gateway?: Partial<GatewayConfig>;
    v1?: V1ServiceOptions;
    idp?: IdentityProviderOptions;
    /** A provider the caller owns (and closes). */
    idpInstance?: TestIdentityProvider;
  } = {},
): Promise<SignedInStack> {
  const idp = options.idpInstance ?? (await startIdentityProvider({ machines: Object.values(MACHINES).map((machine) => ({ ...machine })), ...options.idp }));
  const folder = mkdtempSync(join(tmpdir(), 'gateway-identity-'));
  const credentialsFile = join(folder, 'upstream-credentials.json');
  writeCredentials(credentialsFile);
  const config = parseGatewayConfig({
    AUTH_MODE: options.mode ?? 'oidc',
    OIDC_ISSUER: idp.issuer,
    OIDC_AUDIENCE: idp.audience,
    UPSTREAM_CREDENTIALS: credentialsFile,
    ...options.env,
  });
  const stack = await startStack({ gateway: { ...config, ...options.gateway }, key: null, ...(options.v1 ? { v1: options.v1 } : {}) });
  return {
    ...stack,
    idp,
    credentialsFile,
    token: (machine, scopes) => idp.machineToken(MACHINES[machine].clientId, scopes),
    send: (query, bearer, variables = {}, headers = {}) =>
      postGraphQL(stack.gateway.url, { query, variables }, { ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }), ...headers }),
    async close() {
      await stack.close();
      if (!options.idpInstance) await idp.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
