// Apollo's caches that clients fill, bounded so that a gateway runs in a heap of 128 MB (Apollo's
// defaults are 30 MiB each; test/system/main.test.ts runs the compiled gateway capped so). Parsed and
// validated documents are counted by the length of their JSON, and take about four times that on
// the heap: a stream of distinct operations filled the heap and stopped the process. Automatic
// persisted queries are counted by the length of their text. With REDIS_URL, persisted queries are
// shared by the replicas (redis-persisted-queries.ts), this process's own cache beside them.
import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import type { DocumentNode } from 'graphql';
import type { SharedRedis } from '../shared-state/redis.ts';
import { PERSISTED_QUERY_CACHE_BYTES, SharedPersistedQueries } from './redis-persisted-queries.ts';

const DOCUMENT_CACHE_BYTES = 2 * 1024 * 1024;

/**
 * Apollo Server's `documentStore` and `persistedQueries` options, this gateway's own. `redis`,
 * REDIS_URL's connection, puts persisted queries shared through Redis in front of this process's own.
 */
export function apolloCaches(redis?: SharedRedis) {
  const persisted = new InMemoryLRUCache<string>({ maxSize: PERSISTED_QUERY_CACHE_BYTES });
  return {
    documentStore: new InMemoryLRUCache<DocumentNode>({ maxSize: DOCUMENT_CACHE_BYTES }),
    persistedQueries: { cache: redis ? new SharedPersistedQueries(redis, persisted) : persisted },
  };
}
