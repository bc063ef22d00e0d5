// Identity as the configuration asks for it (AUTH_MODE): who each request and each WebSocket
// connection is for, decided once, before any other work. `key` (the default): the client's own
// upstream key, as in revision 2. `oidc`: the identity provider's access token, checked here, and
// an upstream key that only the gateway holds (UPSTREAM_CREDENTIALS). `both`: a bearer value that
// is a JWT is a token, anything else a key. In every mode, no credential at all is refused here.
import type { Logger } from 'pino';
import { ConfigError } from '../config-error.ts';
import { Counter, type Registry } from 'prom-client';
import { keyCaller, userCaller, type Caller, type SignedInUser } from './caller.ts';
import type { Credential } from './credential.ts';
import { CredentialsError, UpstreamCredentials } from './credentials.ts';
import { ProviderKeys } from './provider-keys.ts';
import type { AuthMode, IdentitySettings, OidcSettings } from './settings.ts';
import { checkToken, looksLikeJwt } from './tokens.ts';

export type { Caller, SignedInUser } from './caller.ts';
export { credentialOfConnectionParams, credentialOfHeaders } from './credential.ts';
export type { AuthMode, IdentitySettings } from './settings.ts';

/** Why a credential is not taken, in the contract's codes, for HTTP and for a WebSocket. */
export interface IdentityRefusal {
  status: 401 | 403 | 503;
  code: 'UNAUTHENTICATED' | 'FORBIDDEN' | 'IDENTITY_PROVIDER_UNAVAILABLE';
  message: string;
  /** RFC 6750's challenge, on every 401. */
  headers: Record<string, string>;
  /** The WebSocket close code: 4401, 4403, or 1013 (try again later). */
  closeCode: 4401 | 4403 | 1013;
}

export type Authentication = { ok: true; caller: Caller } | { ok: false; refusal: IdentityRefusal };

export interface Identity {
  readonly mode: AuthMode;
  authenticate(credential: Credential | null): Promise<Authentication>;
  /** The caller with the key the gateway holds now for it (after a SIGHUP), or a refusal when it holds none any more. */
  current(caller: Caller): Authentication;
  /** For /readyz: undefined in `key` mode. */
  readiness(): Promise<{ ready: boolean; identityProvider: string } | undefined>;
  close(): void;
}

const NO_CREDENTIAL: Record<AuthMode, string> = {
  key: 'No API key: send it as X-Service-Token (or Authorization: Bearer <key>).',
  oidc: 'No credential: sign in with the identity provider and send its access token as Authorization: Bearer <token>.',
  both: 'No credential: send an access token as Authorization: Bearer <token>, or an API key as X-Service-Token.',
};

function unauthenticated(message: string, error?: string): IdentityRefusal {
  // RFC 6750: a request with no credential gets the bare challenge; a refused token, its error.
  // A header value is printable ASCII: the description keeps only that of the message.
  const description = message.replace(/[’‘]/g, "'").replace(/[^\x20-\x7e]|["\\]/g, '');
  const challenge = error === undefined ? 'Bearer' : `Bearer error="${error}", error_description="${description}"`;
  return { status: 401, code: 'UNAUTHENTICATED', message, headers: { 'www-authenticate': challenge }, closeCode: 4401 };
}

function forbidden(message: string): IdentityRefusal {
  return { status: 403, code: 'FORBIDDEN', message, headers: {}, closeCode: 4403 };
}

const UNAVAILABLE: IdentityRefusal = {
  status: 503,
  code: 'IDENTITY_PROVIDER_UNAVAILABLE',
  message: 'The identity provider cannot be reached to check this token: try again shortly.',
  headers: { 'retry-after': '5' },
  closeCode: 1013,
};

export function identityFor(settings: IdentitySettings, logger: Logger, registry: Registry): Identity {
  const checks = new Counter({
    name: 'gateway_identity_checks_total',
    help: 'Credentials checked, by kind (key, token, none) and outcome (accepted, refused, forbidden, unavailable)',
    labelNames: ['kind', 'outcome'],
    registers: [registry],
  });
  const count = (kind: 'key' | 'token' | 'none', auth: Authentication): Authentication => {
    checks.inc({ kind, outcome: auth.ok ? 'accepted' : { 401: 'refused', 403: 'forbidden', 503: 'unavailable' }[auth.refusal.status] });
    return auth;
  };
  const asKey = (credential: Credential) => count('key', { ok: true, caller: keyCaller(credential.value) });
  if (settings.mode === 'key' || settings.oidc === undefined) {
    return {
      mode: 'key',
      authenticate: async (credential) => (credential ? asKey(credential) : count('none', { ok: false, refusal: unauthenticated(NO_CREDENTIAL.key) })),
      current: (caller) => ({ ok: true, caller }),
      readiness: async () => undefined,
      close() {},
    };
  }
  const oidc: OidcSettings = settings.oidc;
  const mode = settings.mode;
  let credentials: UpstreamCredentials;
  try {
    credentials = new UpstreamCredentials(oidc.credentialsFile);
  } catch (error) {
    // A bad file stops the start with one line naming it (the command prints a ConfigError so).
    if (error instanceof CredentialsError) throw new ConfigError(error.message);
    throw error;
  }
  const fetches = new Counter({
    name: 'gateway_identity_provider_fetches_total',
    help: 'Fetches of the identity provider’s discovery document and key set, by what and outcome',
    labelNames: ['what', 'outcome'],
    registers: [registry],
  });
  const keys = new ProviderKeys(oidc.issuer, {
    onFetch: (what, ok) => fetches.inc({ what, outcome: ok ? 'ok' : 'failed' }),
    onReachability(reachable, cause) {
      if (reachable) logger.info({ issuer: oidc.issuer }, 'the identity provider (OIDC_ISSUER) answers: its keys are fetched');
      else logger.warn({ issuer: oidc.issuer, cause }, `the identity provider (OIDC_ISSUER) cannot be reached: ${cause}; serving anyway, tokens are answered 503 until it can`);
    },
  });
  void keys.warmUp();

  // Read again on SIGHUP, so that a key is rotated without a restart; a bad file keeps the old keys.
  const onHangUp = () => {
    try {
      credentials.reload();
      logger.info('UPSTREAM_CREDENTIALS read again (SIGHUP)');
    } catch (error) {
      logger.error({ cause: (error as Error).message }, 'UPSTREAM_CREDENTIALS not read again: the keys held stay in use');
    }
  };
  process.on('SIGHUP', onHangUp);

  /** The key this user acts with now, or why there is none. */
  const keyFor = (user: SignedInUser): { ok: true; apiKey: string } | { ok: false; refusal: IdentityRefusal } => {
    if (user.admin) {
      const admin = credentials.adminKey;
      return admin ? { ok: true, apiKey: admin } : { ok: false, refusal: forbidden('This token has scope admin, and the gateway holds no admin key (UPSTREAM_CREDENTIALS).') };
    }
    const key = user.organizationId === null ? undefined : credentials.organizationKey(user.organizationId);
    return key ? { ok: true, apiKey: key } : { ok: false, refusal: forbidden('This token names no organization the gateway holds a key for.') };
  };

  const asToken = async (token: string): Promise<Authentication> => {
    const checked = await checkToken(token, keys, oidc);
    if (!checked.ok) return { ok: false, refusal: checked.kind === 'unavailable' ? UNAVAILABLE : unauthenticated(checked.reason, 'invalid_token') };
    const { sub, organizations, scopes, expiresAt } = checked.token;
    const admin = scopes.has('admin');
    if (!admin && organizations.length !== 1) {
      return { ok: false, refusal: forbidden(organizations.length === 0 ? 'This token names no organization.' : 'This token names several organizations: it must name one.') };
    }
    const user: SignedInUser = { sub, organizationId: organizations.length === 1 ? organizations[0]! : null, scopes, admin, expiresAt };
    const key = keyFor(user);
    return key.ok ? { ok: true, caller: userCaller(key.apiKey, user) } : key;
  };

  return {
    mode,
    async authenticate(credential) {
      if (credential === null) return count('none', { ok: false, refusal: unauthenticated(NO_CREDENTIAL[mode]) });
      if (credential.kind === 'bearer' && looksLikeJwt(credential.value)) return count('token', await asToken(credential.value));
      if (mode === 'both') return asKey(credential);
      return count('key', {
        ok: false,
        refusal: unauthenticated('This gateway takes no API key from clients: sign in with the identity provider and send its access token as Authorization: Bearer <token>.', 'invalid_token'),
      });
    },
    current(caller) {
      if (!caller.user) return { ok: true, caller };
      const key = keyFor(caller.user);
      return key.ok ? { ok: true, caller: key.apiKey === caller.apiKey ? caller : { ...caller, apiKey: key.apiKey } } : key;
    },
    async readiness() {
      if (keys.reachable !== true) await keys.warmUp();
      const reachable = keys.reachable === true;
      return {
        // Without keys no token can be checked: in `oidc` mode nothing can be served.
        ready: reachable || keys.holdsKeys || mode === 'both',
        identityProvider: reachable ? 'reachable' : `unreachable: ${keys.cause ?? 'it does not answer'}${keys.holdsKeys ? '; checking tokens with the keys held' : ''}`,
      };
    },
    close() {
      process.off('SIGHUP', onHangUp);
    },
  };
}
