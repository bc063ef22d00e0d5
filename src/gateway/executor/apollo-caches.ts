// Apollo's caches that clients fill, bounded so that a gateway runs in a heap of 128 MB (Apollo's
// defaults are 30 MiB each; test/system/main.test.ts runs the compiled gateway capped so). Parsed and
// validated documents are counted by the length of their JSON, and take about four times that on
// the heap: a stream of distinct operations filled the heap and stopped the process. Automatic
// persisted queries are counted by the length of their text.
import { InMemoryLRUCache, type KeyValueCache } from '@apollo/utils.keyvaluecache';
import type { DocumentNode } from 'graphql';

const DOCUMENT_CACHE_BYTES = 2 * 1024 * 1024;
const PERSISTED_QUERY_CACHE_BYTES = 4 * 1024 * 1024;

/**
 * Apollo Server's `documentStore` and `persistedQueries` options, this gateway's own. `share`, with
 * replicas, puts persisted queries shared through Redis in front of this process's own.
 */
export function apolloCaches(share: (local: KeyValueCache<string>) => KeyValueCache<string> = (local) => local) {
  return {
    documentStore: new InMemoryLRUCache<DocumentNode>({ maxSize: DOCUMENT_CACHE_BYTES }),
    persistedQueries: { cache: share(new InMemoryLRUCache<string>({ maxSize: PERSISTED_QUERY_CACHE_BYTES })) },
  };
}
