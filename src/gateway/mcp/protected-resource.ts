// How /mcp tells a client without credentials what to send: a `WWW-Authenticate: Bearer` challenge
// (RFC 6750). Where people sign in with an identity provider, the challenge also names the
// resource's metadata (RFC 9728), whose `authorization_servers` an MCP client follows to sign a
// person in (the MCP authorization flow); with API keys alone there is nothing to follow.

/** Where RFC 9728 puts a resource's metadata: `/.well-known/oauth-protected-resource` then the resource's path. */
export function protectedResourceMetadataUrl(resource: URL): string {
  const path = resource.pathname === '/' ? '' : resource.pathname;
  return `${resource.origin}/.well-known/oauth-protected-resource${path}`;
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

/** The challenge of a 401: with the metadata's address when a sign-in can follow. */
export function bearerChallenge(metadataUrl?: string): string {
  return metadataUrl === undefined ? 'Bearer realm="mcp"' : `Bearer realm="mcp", resource_metadata="${metadataUrl}"`;
}
