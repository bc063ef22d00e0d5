// The shared state over Redis (REDIS_URL): the one connection and its `redis_connected` gauge.
// Loaded by index.ts only when REDIS_URL is set: a gateway without it never loads the Redis client.
// In a worker of GATEWAY_WORKERS, the stores' local state is the primary's (through-primary.ts).
import cluster from 'node:cluster';
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import { SharedRedis } from './redis.ts';
import type { SharedState } from './shared-state.ts';
import { ThroughPrimary } from './through-primary.ts';

export async function redisSharedState(redisUrl: string, logger: Logger, registry: Registry): Promise<SharedState> {
  const connected = new Gauge({ name: 'redis_connected', help: 'Whether the shared state (REDIS_URL) is reachable: 1, or 0 while each replica uses its local state', registers: [registry] });
  const redis = new SharedRedis({
    url: redisUrl,
    logger,
    onState: (state) => connected.set(state === 'connected' ? 1 : 0),
    // A worker of GATEWAY_WORKERS keeps its local state in its primary, one for all the workers.
    ...(cluster.isWorker ? { local: new ThroughPrimary(logger) } : {}),
  });
  connected.set(0);
  await redis.ready();
  return {
    get redisState() {
      return redis.state;
    },
    redis,
    close: () => redis.close(),
  };
}
