// What a gateway instance is given at start for its state (index.ts makes it): the connection to
// Redis that replicas share it through, or none, and whether Redis is reachable (for /readyz).
import type { RedisState, SharedRedis } from './redis.ts';

export interface SharedState {
  /** `connected` or `unreachable` with Redis; undefined without REDIS_URL. */
  readonly redisState: RedisState | undefined;
  /**
   * The connection replicas share state through; undefined without REDIS_URL, when each feature
   * keeps its own state in this process. Each feature makes its store from it.
   */
  readonly redis: SharedRedis | undefined;
  close(): Promise<void>;
}
