// Who may call the gateway and how (graphql.md, "Signed-in users"): AUTH_MODE, the provider's
// issuer and audience, the claims that name a user's organization and scopes, and the file of
// upstream keys the gateway acts with. Read from the environment by config.ts; a bad value (or a
// bad credentials file, checked here so that it stops the start before anything listens) is a
// ConfigError whose message is one line naming the setting.
import { ConfigError } from '../config-error.ts';
import { CredentialsError, readCredentials } from './credentials.ts';
export type AuthMode = 'key' | 'oidc' | 'both';

export interface OidcSettings {
  /** OIDC_ISSUER, exactly as tokens carry it in `iss` (no trailing slash added or removed). */
  issuer: string;
  /** OIDC_AUDIENCE: the `aud` a token must carry. */
  audience: string;
  /** OIDC_ORGANIZATION_CLAIM (default `org_id`). */
  organizationClaim: string;
  /** OIDC_SCOPE_CLAIM (default `scope`). */
  scopeClaim: string;
  /** UPSTREAM_CREDENTIALS: the JSON file of the organizations' keys and the admin key. */
  credentialsFile: string;
}

export interface IdentitySettings {
  mode: AuthMode;
  /** Present in `oidc` and `both` modes. */
  oidc: OidcSettings | undefined;
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

const MODES: readonly AuthMode[] = ['key', 'oidc', 'both'];
const CLAIM_NAME = /^[\x21-\x7e]{1,200}$/;

export function identitySettings(env: Env): IdentitySettings {
  const raw = read(env, 'AUTH_MODE')?.toLowerCase() ?? 'key';
  if (!(MODES as readonly string[]).includes(raw)) throw new ConfigError(`AUTH_MODE: expected key, oidc or both, got "${raw}"`);
  const mode = raw as AuthMode;
  if (mode === 'key') return { mode, oidc: undefined };
  const required = (name: string, what: string): string => {
    const value = read(env, name);
    if (value === undefined) throw new ConfigError(`${name}: AUTH_MODE=${mode} needs ${what}`);
    return value;
  };
  const issuer = required('OIDC_ISSUER', 'the identity provider’s issuer URL, such as https://login.example.com/realms/acme');
  const url = URL.canParse(issuer) ? new URL(issuer) : undefined;
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`OIDC_ISSUER: expected an http(s) URL without credentials, query or fragment, got "${issuer}"`);
  }
  const claim = (name: string, fallback: string): string => {
    const value = read(env, name) ?? fallback;
    if (!CLAIM_NAME.test(value)) throw new ConfigError(`${name}: expected a claim name, got "${value}"`);
    return value;
  };
  const settings: IdentitySettings = {
    mode,
    oidc: {
      issuer,
      audience: required('OIDC_AUDIENCE', 'the audience (`aud`) the provider puts in tokens meant for this gateway'),
      organizationClaim: claim('OIDC_ORGANIZATION_CLAIM', 'org_id'),
      scopeClaim: claim('OIDC_SCOPE_CLAIM', 'scope'),
      credentialsFile: required('UPSTREAM_CREDENTIALS', 'the JSON file of upstream keys, {"organizations": {"<id>": "<key>"}, "admin": "<key>"}'),
    },
  };
  try {
    readCredentials(settings.oidc!.credentialsFile);
  } catch (error) {
    if (error instanceof CredentialsError) throw new ConfigError(error.message);
    throw error;
  }
  return settings;
}
