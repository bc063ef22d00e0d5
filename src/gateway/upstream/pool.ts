// A keep-alive connection pool to the upstream's origin, owned by the gateway instance: every
// request's calls share it, so a GraphQL request costs no TCP (or TLS) handshake.
import { Pool } from 'undici';

export interface PoolOptions {
  /** Sockets to the origin. */
  connections?: number;
  /** How long an idle socket is kept; below the upstream's own idle timeout (Node's default is 5 s). */
  keepAliveTimeout?: number;
  /** Safety nets only: each call has its own, shorter deadline (see transport.ts). */
  headersTimeout?: number;
  bodyTimeout?: number;
  connectTimeout?: number;
}

export const DEFAULT_CONNECTIONS = 64;

const DEFAULTS: Required<PoolOptions> = {
  connections: DEFAULT_CONNECTIONS,
  keepAliveTimeout: 4_000,
  headersTimeout: 60_000,
  bodyTimeout: 60_000,
  connectTimeout: 10_000,
};

/** A pool to `origin` (scheme, host and port; any path is ignored); its owner closes it. */
export function createPool(origin: string | URL, options: PoolOptions = {}): Pool {
  // pipelining 1: no request waits behind another's slow response on the same socket.
  return new Pool(new URL(origin).origin, { ...DEFAULTS, ...options, pipelining: 1 });
}
