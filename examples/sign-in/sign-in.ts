// A single-page app signing its user in with the organization's identity provider (authorization
// code flow with PKCE, by oidc-client-ts), then calling the gateway with the access token over
// HTTP and WebSocket. The page never holds an upstream key. docs/sign-in.md.
import { createClient, type Client } from 'graphql-ws';
import { UserManager } from 'oidc-client-ts';

export interface SignInSettings {
  /** The provider's issuer: the gateway's OIDC_ISSUER. */
  authority: string;
  /** The app's client at the provider: public, authorization code, PKCE. */
  clientId: string;
  /** The gateway's OIDC_AUDIENCE, asked for as a resource indicator (RFC 8707). */
  audience: string;
  /** The gateway's GraphQL URL, such as https://gateway.example.com/graphql. */
  gatewayUrl: string;
  /** What the user lets the app do. */
  scopes: string[];
}

export function userManager(settings: SignInSettings): UserManager {
  return new UserManager({
    authority: settings.authority,
    client_id: settings.clientId,
    redirect_uri: `${location.origin}/callback`,
    response_type: 'code', // PKCE is oidc-client-ts's default with the code flow
    scope: ['openid', ...settings.scopes].join(' '),
    // Tokens for the gateway: providers with resource indicators (RFC 8707) need the audience.
    extraQueryParams: { resource: settings.audience },
    extraTokenParams: { resource: settings.audience },
  });
}

/** Sends the user to the provider's sign-in page, or finishes the sign-in on the way back. */
export async function signIn(users: UserManager): Promise<string> {
  if (location.pathname === '/callback') {
    const user = await users.signinRedirectCallback();
    history.replaceState(null, '', '/');
    return user.access_token;
  }
  const user = await users.getUser();
  if (user && !user.expired) return user.access_token;
  await users.signinRedirect();
  return new Promise(() => {}); // the page is leaving
}

/** One GraphQL operation over HTTP, with the user's token. */
export async function query(users: UserManager, gatewayUrl: string, document: string, variables: Record<string, unknown> = {}) {
  const user = await users.getUser();
  const response = await fetch(gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${user?.access_token}` },
    body: JSON.stringify({ query: document, variables }),
  });
  if (response.status === 401) await users.signinRedirect(); // expired or refused: sign in again
  return response.json();
}

/**
 * Subscriptions over WebSocket: the token goes in `connection_init`, read afresh on every
 * (re)connection. When it expires the gateway closes with 4401; a new token is fetched (silently
 * when the provider allows it) and the client connects again.
 */
export function subscriptions(users: UserManager, gatewayUrl: string): Client {
  return createClient({
    url: gatewayUrl.replace(/^http/, 'ws'),
    connectionParams: async () => {
      let user = await users.getUser();
      if (!user || user.expired) user = await users.signinSilent();
      return { authorization: `Bearer ${user?.access_token}` };
    },
    // 4401 is fatal to graphql-ws by default: here it means "token expired, connect again".
    shouldRetry: () => true,
  });
}
