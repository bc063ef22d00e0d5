// A provider's access token checked with jose: its signature against the provider's published
// keys (asymmetric algorithms only: `none` and HMAC, whose secret any holder of a client secret
// could know, never verify), `iss`, `aud`, `exp` (required: every token must end) and `nbf`, with
// 30 s of clock skew. What the gateway keeps of a token is only the user it names: `sub`, the
// organization claim, the scopes, and when it expires; the token itself goes nowhere.
import { errors, jwtVerify, type JWTPayload } from 'jose';
import { ProviderUnavailableError, type ProviderKeys } from './provider-keys.ts';
import type { OidcSettings } from './settings.ts';

export const CLOCK_SKEW_S = 30;

/** Every JWS algorithm whose verification key is public. */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'Ed25519', 'EdDSA'];

export interface VerifiedToken {
  sub: string;
  /** The organization claim's values, as strings (several or none: the caller decides). */
  organizations: string[];
  scopes: Set<string>;
  /** `exp`, in ms since the epoch. */
  expiresAt: number;
}

export type TokenCheck =
  | { ok: true; token: VerifiedToken }
  /** Why, in words safe to send back: never the token, never a claim's value. */
  | { ok: false; kind: 'invalid'; reason: string }
  | { ok: false; kind: 'unavailable' };

/** Three base64url segments, the last possibly empty (`alg: none`): the shape of a JWS in compact form. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function looksLikeJwt(value: string): boolean {
  return COMPACT_JWS.test(value);
}

export async function checkToken(token: string, keys: ProviderKeys, settings: OidcSettings): Promise<TokenCheck> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys.getKey, {
      issuer: settings.issuer,
      audience: settings.audience,
      algorithms: ASYMMETRIC_ALGORITHMS,
      clockTolerance: CLOCK_SKEW_S,
      requiredClaims: ['exp', 'sub'],
    }));
  } catch (error) {
    if (error instanceof ProviderUnavailableError) return { ok: false, kind: 'unavailable' };
    return { ok: false, kind: 'invalid', reason: reasonOf(error) };
  }
  const sub = payload.sub;
  if (typeof sub !== 'string' || sub === '') return { ok: false, kind: 'invalid', reason: 'the token names no subject (sub)' };
  return {
    ok: true,
    token: {
      sub,
      organizations: organizationsOf(payload[settings.organizationClaim]),
      scopes: scopesOf(payload[settings.scopeClaim]),
      expiresAt: (payload.exp as number) * 1000,
    },
  };
}

function organizationsOf(claim: unknown): string[] {
  const values = Array.isArray(claim) ? claim : claim === undefined || claim === null ? [] : [claim];
  return values.filter((value) => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))).map(String);
}

function scopesOf(claim: unknown): Set<string> {
  if (typeof claim === 'string') return new Set(claim.split(' ').filter(Boolean));
  if (Array.isArray(claim)) return new Set(claim.filter((value): value is string => typeof value === 'string'));
  return new Set();
}

/** jose's verdict in a client's words, without any of the token's content. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return 'the token is not valid yet';
    if (error.claim === 'iss') return 'the token was not issued by the identity provider this gateway trusts';
    if (error.claim === 'aud') return 'the token is not meant for this gateway (aud)';
    return `the token's ${error.claim} claim is missing or invalid`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the token is not signed with an asymmetric algorithm';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token’s signature does not verify';
  if (error instanceof errors.JWKSNoMatchingKey) return 'the token is signed with a key the identity provider does not publish';
  return 'the token is malformed';
}
