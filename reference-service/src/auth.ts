import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { hashApiKey } from './storage/keys.ts';
import type { V1Store } from './storage/store.ts';
import { forbidden, unauthenticated } from './http/errors.ts';

export const TOKEN_HEADER = 'x-service-token';

/** Who is calling: the organization its key belongs to, or null for an admin key. */
export interface Principal {
  organizationId: number | null;
}

/**
 * Authenticates a request by its `X-Service-Token` (401 `unauthenticated` when missing, empty or
 * unknown).
 *
 * The key is looked up by its SHA-256, and that is what makes the timing of the lookup harmless:
 * the index compares hashes, and how far a presented hash matches a stored one tells nothing about
 * how to choose a key that matches further. The timingSafeEqual below cannot fail (the row was
 * found by that very hash); it stays because the contract's *Authentication* says, literally, that
 * the service "compares in constant time".
 */
export async function authenticate(store: V1Store, req: IncomingMessage): Promise<Principal> {
  const header = req.headers[TOKEN_HEADER];
  const token = Array.isArray(header) ? header[0] : header;
  if (token === undefined || token.trim() === '') throw unauthenticated('The X-Service-Token header is required.');
  const presented = hashApiKey(token);
  const stored = await store.findKeyByHash(presented);
  if (!stored || !timingSafeEqual(stored.keyHash, presented)) {
    throw unauthenticated('The X-Service-Token is not a valid key.');
  }
  return { organizationId: stored.organizationId };
}

/** Whether the principal may see and change records of this organization. */
export function mayAccess(principal: Principal, organizationId: number): boolean {
  return principal.organizationId === null || principal.organizationId === organizationId;
}

/**
 * 403 `forbidden` when an organization key names another organization (in a path, body or
 * query; `field` says where).
 */
export function requireAccess(principal: Principal, organizationId: number, field?: string): void {
  if (!mayAccess(principal, organizationId)) {
    throw forbidden(`This key may not act on organization ${organizationId}.`, field);
  }
}
