// The identity provider's signing keys: found through OpenID Connect discovery
// (`<issuer>/.well-known/openid-configuration` names `jwks_uri`), fetched, kept, and matched to a
// token's header by jose's local key set. Refreshed only when a token names a `kid` the set lacks,
// at most once in 30 s whatever the number of such tokens (a flood of made-up kids costs the
// provider one fetch), and in the background once the set is 10 minutes old. While nothing was
// ever fetched, a fetch is tried at most once in 5 s: a provider that is down is not hammered,
// and comes back into use within seconds of answering again.
import { createLocalJWKSet, errors, type CryptoKey, type JSONWebKeySet, type JWSHeaderParameters, type FlattenedJWSInput } from 'jose';
import { z } from 'zod';

/** Whatever the number of tokens with unknown kids, one refresh of the keys in this window. */
export const UNKNOWN_KID_COOLDOWN_MS = 30_000;
const RETRY_WITHOUT_KEYS_MS = 5_000;
const MAX_AGE_MS = 10 * 60_000;
const FETCH_TIMEOUT_MS = 5_000;
const MAX_DOCUMENT_BYTES = 512 * 1024;

const Discovery = z.object({ issuer: z.string(), jwks_uri: z.url() });
const KeySet = z.object({ keys: z.array(z.record(z.string(), z.unknown())) });

/** The provider could not be reached (or answered nonsense) when its keys were needed. */
export class ProviderUnavailableError extends Error {
  override name = 'ProviderUnavailableError';
}

type KeyResolver = ReturnType<typeof createLocalJWKSet>;

export interface ProviderKeysEvents {
  /** Each fetch of the discovery document or the key set, for metrics and tests. */
  onFetch?(what: 'discovery' | 'keys', ok: boolean): void;
  /** The provider's reachability changed (first known state included). */
  onReachability?(reachable: boolean, cause: string | undefined): void;
}

export class ProviderKeys {
  #jwksUri: string | undefined;
  #keys: KeyResolver | undefined;
  #fetchedAt = 0;
  #attemptedAt = -Infinity;
  #refresh: Promise<void> | undefined;
  #reachable: boolean | undefined;
  #cause: string | undefined;

  constructor(
    private readonly issuer: string,
    private readonly events: ProviderKeysEvents = {},
  ) {}

  /** Whether the last look at the provider got an answer; undefined before the first. */
  get reachable(): boolean | undefined {
    return this.#reachable;
  }

  get holdsKeys(): boolean {
    return this.#keys !== undefined;
  }

  /** A fetch of the keys now (at start), whose failure is only recorded. */
  async warmUp(): Promise<void> {
    await this.#refreshOnce().catch(() => {});
  }

  /** jose's key lookup for `jwtVerify`: the key for the token's header, fetching as said above. */
  readonly getKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> => {
    const now = Date.now();
    if (this.#keys === undefined) {
      if (now - this.#attemptedAt < RETRY_WITHOUT_KEYS_MS && this.#refresh === undefined) throw new ProviderUnavailableError(this.#cause ?? 'unreachable');
      await this.#refreshOnce();
    } else if (now - this.#fetchedAt > MAX_AGE_MS && now - this.#attemptedAt >= UNKNOWN_KID_COOLDOWN_MS) {
      // Old keys still verify while the new set is fetched; a failure keeps them.
      void this.#refreshOnce().catch(() => {});
    }
    try {
      return await this.#keys!(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      if (this.#refresh === undefined && Date.now() - this.#attemptedAt < UNKNOWN_KID_COOLDOWN_MS) throw error;
      // A kid the set lacks: the provider may have rotated its keys. Its answer decides.
      await this.#refreshOnce();
      return this.#keys!(header, token);
    }
  };

  /** One refresh at a time: every caller waiting meanwhile shares it. */
  #refreshOnce(): Promise<void> {
    this.#refresh ??= this.#fetchKeys().finally(() => {
      this.#refresh = undefined;
    });
    return this.#refresh;
  }

  async #fetchKeys(): Promise<void> {
    this.#attemptedAt = Date.now();
    try {
      if (this.#jwksUri === undefined) {
        const discovery = Discovery.safeParse(await this.#fetchJson(`${this.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, 'discovery'));
        if (!discovery.success) throw new ProviderUnavailableError('its discovery document has no jwks_uri');
        // OpenID Connect Discovery: the document's issuer is the one configured, exactly.
        if (discovery.data.issuer !== this.issuer) throw new ProviderUnavailableError('its discovery document names another issuer than OIDC_ISSUER');
        this.#jwksUri = discovery.data.jwks_uri;
      }
      const set = KeySet.safeParse(await this.#fetchJson(this.#jwksUri, 'keys'));
      if (!set.success) throw new ProviderUnavailableError('its key set is not a JSON Web Key Set');
      this.#keys = createLocalJWKSet(set.data as JSONWebKeySet);
      this.#fetchedAt = Date.now();
      this.#setReachable(true, undefined);
    } catch (error) {
      const cause = error instanceof ProviderUnavailableError ? error.message : 'it does not answer';
      this.#setReachable(false, cause);
      throw error instanceof ProviderUnavailableError ? error : new ProviderUnavailableError(cause);
    }
  }

  async #fetchJson(url: string, what: 'discovery' | 'keys'): Promise<unknown> {
    let ok = false;
    try {
      const response = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!response.ok) throw new ProviderUnavailableError(`its ${what === 'keys' ? 'key set' : 'discovery document'} answered HTTP ${response.status}`);
      const text = await response.text();
      if (text.length > MAX_DOCUMENT_BYTES) throw new ProviderUnavailableError(`its ${what === 'keys' ? 'key set' : 'discovery document'} is too large`);
      const json: unknown = JSON.parse(text);
      ok = true;
      return json;
    } finally {
      this.events.onFetch?.(what, ok);
    }
  }

  #setReachable(reachable: boolean, cause: string | undefined): void {
    const changed = this.#reachable !== reachable;
    this.#reachable = reachable;
    this.#cause = cause;
    if (changed) this.events.onReachability?.(reachable, cause);
  }

  /** Why the provider is unreachable, in words safe for a log line or /readyz. */
  get cause(): string | undefined {
    return this.#cause;
  }
}
