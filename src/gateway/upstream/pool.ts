// One keep-alive connection pool per upstream origin, for the life of the process: per-request
// clients share it, so a GraphQL request costs no TCP (or TLS) handshake.
import { Pool } from 'undici';

export interface PoolOptions {
  /** Sockets per origin. */
  connections?: number;
  /** How long an idle socket is kept; below the upstream's own idle timeout (Node's default is 5 s). */
  keepAliveTimeout?: number;
  /** Safety nets only: each call has its own, shorter deadline (see V1Client). */
  headersTimeout?: number;
  bodyTimeout?: number;
  connectTimeout?: number;
}

const DEFAULTS: Required<PoolOptions> = {
  connections: 64,
  keepAliveTimeout: 4_000,
  headersTimeout: 60_000,
  bodyTimeout: 60_000,
  connectTimeout: 10_000,
};

const pools = new Map<string, Pool>();

/**
 * The pool for `origin` (scheme, host and port; any path is ignored). Options apply when the pool
 * is created: the first caller for an origin decides, later callers share that pool.
 */
export function getPool(origin: string | URL, options: PoolOptions = {}): Pool {
  const key = new URL(origin).origin;
  let pool = pools.get(key);
  if (pool === undefined || pool.closed || pool.destroyed) {
    pool = newPool(key, options);
    pools.set(key, pool);
  }
  return pool;
}

/**
 * A pool of its own, outside the shared ones, for calls that must not queue behind the GraphQL
 * requests' (the readiness probe); its owner closes it.
 */
export function separatePool(origin: string | URL, options: PoolOptions = {}): Pool {
  return newPool(new URL(origin).origin, options);
}

function newPool(origin: string, options: PoolOptions): Pool {
  // pipelining 1: no request waits behind another's slow response on the same socket.
  return new Pool(origin, { ...DEFAULTS, ...options, pipelining: 1 });
}

/** Close every pool (on shutdown, after the requests in flight): idle sockets go at once. */
export async function closePools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((pool) => pool.close()));
}

/** Close the pool of one origin (a gateway stopping while others in the process go on). */
export async function closePool(origin: string | URL): Promise<void> {
  const key = new URL(origin).origin;
  const pool = pools.get(key);
  pools.delete(key);
  await pool?.close();
}
