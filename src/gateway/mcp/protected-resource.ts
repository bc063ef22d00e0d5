// How /mcp tells a client without credentials what to send: a `WWW-Authenticate: Bearer` challenge
// (RFC 6750), the same as /graphql gives. Where people sign in with an identity provider, the
// challenge also names the resource's metadata (RFC 9728), whose `authorization_servers` an MCP
// client follows to sign a person in (the MCP authorization flow); with API keys alone there is
// nothing to follow, and no metadata is served.

export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/** Where RFC 9728 puts a resource's metadata: `/.well-known/oauth-protected-resource` then the resource's path. */
export function protectedResourceMetadataUrl(resource: URL): string {
  const path = resource.pathname === '/' ? '' : resource.pathname;
  return `${resource.origin}${METADATA_PATH}${path}`;
}

/** The RFC 9728 document of `resource` (such as `https://gateway.example/mcp`), served by the identity provider `issuer`. */
export function protectedResourceMetadata(resource: URL, issuer: string, scopes: readonly string[] = []) {
  return {
    resource: resource.href,
    authorization_servers: [issuer],
    bearer_methods_supported: ['header'],
    ...(scopes.length > 0 ? { scopes_supported: [...scopes] } : {}),
  };
}

/**
 * A 401's challenge with the metadata's address added: `Bearer resource_metadata="…"`, or after
 * the challenge's own parameters (`error`, `error_description`) when a token was refused.
 */
export function bearerChallenge(challenge = 'Bearer', metadataUrl?: string): string {
  if (metadataUrl === undefined) return challenge;
  const parameter = `resource_metadata="${metadataUrl}"`;
  return /^Bearer\s*$/i.test(challenge) ? `Bearer ${parameter}` : `${challenge}, ${parameter}`;
}
