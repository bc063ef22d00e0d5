// The local stores the primary of GATEWAY_WORKERS keeps for its workers, made from the same
// configuration and the same descriptions as the workers' own (each feature's Redis adapter
// names its store): what the workers share while Redis is unreachable. Each is made on the first
// call, so a primary whose Redis never fails holds none. The live tail is not here: while Redis is
// away each worker polls for its own subscribers, which still receive every entry once.
import type { GatewayConfig } from './config.ts';
import { localPersistedQueries } from './executor/redis-persisted-queries.ts';
import { localLinks } from './export-links/redis-links.ts';
import { localResponseCache } from './response-cache/redis-store.ts';
import type { AnyLocalStore } from './shared-state/local-state.ts';
import { localBuckets } from './throttling/redis-buckets.ts';

export function workersLocalState(config: GatewayConfig): AnyLocalStore[] {
  return [
    localResponseCache(config.responseCache),
    localLinks(config.exports.linksPerKey),
    localBuckets({ limit: config.rateLimit.calls, restorePerSecond: config.rateLimit.restorePerSecond }),
    localPersistedQueries(),
  ];
}
