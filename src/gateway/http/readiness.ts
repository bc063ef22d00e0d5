// `GET /readyz`: ready when the upstream answers and its circuit is not open. With REDIS_URL, the
// body also says whether the shared state is reachable; an unreachable Redis does not make the
// gateway unready (it serves with local state).
import type { ServerResponse } from 'node:http';
import type { RedisState } from '../shared-state/redis.ts';
import type { Transport } from '../upstream/transport.ts';
import { sendJson } from './plain.ts';

export async function readiness(transport: Transport, res: ServerResponse, redis?: RedisState): Promise<void> {
  const shared = redis === undefined ? {} : { redis: redis === 'connected' ? 'connected' : 'unreachable: serving with local state' };
  // An open circuit: GraphQL calls fail fast until a probe gets through, so not ready either.
  if (transport.breaker.state === 'open') {
    return sendJson(res, 503, { status: 'unavailable', reason: 'the upstream failed repeatedly; calls to it are paused', ...shared });
  }
  if ((await transport.answers()).ok) sendJson(res, 200, { status: 'ready', ...shared });
  else sendJson(res, 503, { status: 'unavailable', reason: 'the upstream does not answer', ...shared });
}
