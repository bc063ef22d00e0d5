// Who a request is for, once its credential is checked: the upstream key the gateway acts with,
// and, for a signed-in user, who the user is. Throttling, the response cache and connection counts
// tell callers apart by names made here, never by a key or a token.
import { keyHash } from '../key-hash.ts';

export interface SignedInUser {
  sub: string;
  /** The one organization the token names; null for an admin whose token names none. */
  organizationId: string | null;
  scopes: ReadonlySet<string>;
  /** Scope `admin`: every scope, every organization, the admin key. */
  admin: boolean;
  /** When the token expires, in ms since the epoch. */
  expiresAt: number;
}

export interface Caller {
  /** The upstream key calls are made with: the client's own, or one the gateway holds. */
  apiKey: string;
  /** Present when the caller signed in with a token. */
  user?: SignedInUser;
  /** Its throttle bucket's name: the key's hash, or the user's. */
  bucket: string;
  /** Its response-cache partition: the key's hash, or its organization's and scope set's. */
  partition: string;
}

export function keyCaller(apiKey: string): Caller {
  const hash = keyHash(apiKey);
  return { apiKey, bucket: hash, partition: hash };
}

export function userCaller(apiKey: string, user: SignedInUser): Caller {
  // Prefixed so that no user's name can meet a key's. The scopes sorted: one set, one partition.
  const scopes = user.admin ? 'admin' : [...user.scopes].sort().join(' ');
  return {
    apiKey,
    user,
    bucket: keyHash(`user\u0000${user.sub}`),
    partition: keyHash(`organization\u0000${user.organizationId ?? '*'}\u0000${scopes}`),
  };
}
