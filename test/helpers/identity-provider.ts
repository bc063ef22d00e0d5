// A real OpenID Connect provider for tests: oidc-provider (the certified Node implementation) on a
// free loopback port. It issues JWT access tokens for one API (its resource indicator is the
// audience the gateway is configured with), with the organization claim and the scopes, through
// the authorization code flow with PKCE (a public single-page-app client, signing in through the
// provider's own login and consent pages) and client credentials (machine clients). Its keys can be
// rotated while it runs, it can be stopped and started again on the same port, and it counts the
// fetches of its discovery document and key set.
import { generateKeyPairSync, randomBytes, createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, importJWK, SignJWT, type JWK } from 'jose';
import Provider from 'oidc-provider';

/** Every scope of the gateway's contract. */
export const ALL_SCOPES = ['frameworks:read', 'frameworks:write', 'web-protection:write', 'devices:read', 'traffic:read', 'traffic:export', 'admin'];

export interface TestAccount {
  /** The login typed on the provider's page (its dev login takes any password). */
  login: string;
  organization: string | number | readonly (string | number)[] | undefined;
}

export interface MachineClient {
  clientId: string;
  clientSecret: string;
  organization: string | number | readonly (string | number)[] | undefined;
}

export interface IdentityProviderOptions {
  /** The API's resource indicator: the `aud` of its access tokens. Default `https://gateway.test/graphql`. */
  audience?: string;
  /** The single-page app's redirect URIs (authorization code + PKCE). */
  redirectUris?: string[];
  accounts?: TestAccount[];
  machines?: MachineClient[];
  /** Access tokens' lifetime in seconds (default 600). */
  accessTokenTtlS?: number;
}

export interface TestIdentityProvider {
  issuer: string;
  audience: string;
  /** The public client of the single-page app. */
  spaClientId: string;
  /** Requests for `/.well-known/openid-configuration` and `/jwks` so far. */
  fetches: { discovery: number; keys: number };
  /** A client-credentials token for `clientId` with `scopes`. */
  machineToken(clientId: string, scopes: string[]): Promise<string>;
  /** A token signed with the provider's current key, with any claims (for expired, not-yet-valid, … cases). */
  sign(claims: Record<string, unknown>, header?: { kid?: string; alg?: string }): Promise<string>;
  /** A token signed by a key the provider never published, claiming the provider's current kid. */
  forge(claims: Record<string, unknown>, kid?: string): Promise<string>;
  /** The claims a valid token has (issuer, audience, sub, times), to build variations on. */
  baseClaims(sub?: string, organization?: unknown, scopes?: string[]): Record<string, unknown>;
  /** A new signing key, published beside the old one; tokens are signed with it from now on. */
  rotateKeys(): Promise<void>;
  /** Stops answering (connections refused); `start` takes the same port again. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

interface SigningKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

async function newSigningKey(): Promise<SigningKey> {
  // P-256 (ES256): made at once, where an RSA key takes seconds on a busy machine.
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = randomBytes(8).toString('hex');
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  return { kid, privateJwk, publicJwk };
}

export async function startIdentityProvider(options: IdentityProviderOptions = {}): Promise<TestIdentityProvider> {
  const audience = options.audience ?? 'https://gateway.test/graphql';
  const accounts = new Map((options.accounts ?? []).map((account) => [account.login, account]));
  const machines = new Map((options.machines ?? []).map((machine) => [machine.clientId, machine]));
  const ttl = options.accessTokenTtlS ?? 600;
  const spaClientId = 'security-console';
  let keys: SigningKey[] = [await newSigningKey()];
  let stranger: SigningKey | undefined;
  const fetches = { discovery: 0, keys: 0 };

  // Listening first: the issuer names the port.
  let handler: ReturnType<Provider['callback']> | undefined;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/.well-known/openid-configuration') fetches.discovery += 1;
    if (path === '/jwks') fetches.keys += 1;
    handler!(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;

  const organizationOf = (token: { accountId?: string; clientId?: string }): unknown => {
    if (token.accountId !== undefined) return accounts.get(token.accountId)?.organization;
    if (token.clientId !== undefined) return machines.get(token.clientId)?.organization;
    return undefined;
  };

  const makeProvider = () =>
    new Provider(issuer, {
      clients: [
        {
          client_id: spaClientId,
          token_endpoint_auth_method: 'none',
          application_type: 'web',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          redirect_uris: options.redirectUris ?? ['http://127.0.0.1/callback'],
        },
        ...[...machines.values()].map((machine) => ({
          client_id: machine.clientId,
          client_secret: machine.clientSecret,
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
        })),
      ],
      jwks: { keys: keys.map((key) => key.privateJwk) },
      // Its keys are P-256: ID tokens are signed ES256 too.
      clientDefaults: { id_token_signed_response_alg: 'ES256' },
      // The dev login page takes any password; the account is the login typed.
      findAccount: async (_ctx: unknown, id: string) => (accounts.has(id) ? { accountId: id, claims: async () => ({ sub: id }) } : undefined),
      scopes: ['openid', 'offline_access', ...ALL_SCOPES],
      features: {
        devInteractions: { enabled: true },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          // Every token is for the gateway, whether the client names it (`resource`) or not.
          defaultResource: async () => audience,
          useGrantedResource: async () => true,
          getResourceServerInfo: async () => ({
            scope: ALL_SCOPES.join(' '),
            audience,
            accessTokenTTL: ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          }),
        },
      },
      extraTokenClaims: async (_ctx: unknown, token: { accountId?: string; clientId?: string }) => {
        const organization = organizationOf(token);
        return organization === undefined ? undefined : { org_id: organization };
      },
      ttl: { AccessToken: ttl, ClientCredentials: ttl, Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 60, IdToken: 3600 },
      pkce: { required: () => true },
      // Loopback over plain HTTP: no secure cookies.
      cookies: { keys: [randomBytes(16).toString('hex')], long: { secure: false }, short: { secure: false } },
      clientBasedCORS: () => true,
    });
  let provider = makeProvider();
  handler = provider.callback();
  let listening = true;

  const signWith = async (key: SigningKey, claims: Record<string, unknown>, header: { kid?: string; alg?: string } = {}) => {
    const privateKey = await importJWK(key.privateJwk, 'ES256');
    return new SignJWT(claims).setProtectedHeader({ alg: header.alg ?? 'ES256', kid: header.kid ?? key.kid, typ: 'at+jwt' }).sign(privateKey);
  };

  const stop = async () => {
    if (!listening) return;
    listening = false;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  };
  return {
    issuer,
    audience,
    spaClientId,
    fetches,
    async machineToken(clientId, scopes) {
      const machine = machines.get(clientId);
      if (!machine) throw new Error(`no machine client ${clientId}`);
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(machine.clientSecret)}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: scopes.join(' '), resource: audience }),
      });
      const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!body.access_token) throw new Error(`token endpoint: ${body.error}: ${body.error_description}`);
      return body.access_token;
    },
    sign: (claims, header) => signWith(keys[0]!, claims, header),
    async forge(claims, kid) {
      // One stranger key for every forgery: making an RSA key is slow on a busy machine.
      stranger ??= await newSigningKey();
      return signWith(stranger, claims, { kid: kid ?? keys[0]!.kid });
    },
    baseClaims(sub = 'user-1', organization = '1', scopes = ['frameworks:read']) {
      const now = Math.floor(Date.now() / 1000);
      return { iss: issuer, aud: audience, sub, iat: now, exp: now + 300, scope: scopes.join(' '), ...(organization === undefined ? {} : { org_id: organization }) };
    },
    async rotateKeys() {
      keys = [await newSigningKey(), ...keys];
      provider = makeProvider();
      handler = provider.callback();
    },
    stop,
    close: stop,
    async start() {
      if (listening) return;
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      listening = true;
    },
  };
}

/** A PKCE pair (RFC 7636, S256). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}
