// `GET /readyz`: ready when the upstream answers, its circuit is not open and its connections are
// not all busy with calls waiting. With REDIS_URL, the
// body also says whether the shared state is reachable; an unreachable Redis does not make the
// gateway unready (it serves with local state).
import type { ServerResponse } from 'node:http';
import type { RedisState } from '../shared-state/redis.ts';
import type { Transport } from '../upstream/transport.ts';
import { sendJson } from './plain.ts';

export async function readiness(
  transport: Transport,
  res: ServerResponse,
  redis?: RedisState,
  /** With AUTH_MODE oidc or both: whether the identity provider answers, and whether tokens can be checked without it. */
  identity?: () => Promise<{ ready: boolean; identityProvider: string } | undefined>,
  /** The downloads' own transport: saturated or failing, it is told, not counted against readiness. */
  exports?: Transport,
): Promise<void> {
  const provider = await identity?.();
  const shared = {
    ...(redis === undefined ? {} : { redis: redis === 'connected' ? 'connected' : 'unreachable: serving with local state' }),
    ...(provider ? { identityProvider: provider.identityProvider } : {}),
    ...(exports?.breaker.state === 'open' ? { exports: 'paused: the upstream failed repeatedly' } : exports?.saturated ? { exports: 'saturated' } : {}),
  };
  // Every upstream connection busy and calls waiting: answers come late, whatever the upstream says.
  if (transport.saturated) {
    return sendJson(res, 503, { status: 'unavailable', reason: 'every upstream connection is busy and calls are waiting for one', ...shared });
  }
  if (provider && !provider.ready) {
    return sendJson(res, 503, { status: 'unavailable', reason: 'the identity provider cannot be reached and no token can be checked without its keys', ...shared });
  }
  // An open circuit: GraphQL calls fail fast until a probe gets through, so not ready either.
  if (transport.breaker.state === 'open') {
    return sendJson(res, 503, { status: 'unavailable', reason: 'the upstream failed repeatedly; calls to it are paused', ...shared });
  }
  if ((await transport.answers()).ok) sendJson(res, 200, { status: 'ready', ...shared });
  else sendJson(res, 503, { status: 'unavailable', reason: 'the upstream does not answer', ...shared });
}
