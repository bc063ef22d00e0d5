// State shared by replicas, behind one interface with a local fallback: with REDIS_URL, throttle
// buckets, the response cache and its invalidations, persisted queries, trusted documents and
// export links go through Redis; without it (or while it is unreachable) each replica keeps its
// own. The stores are this gateway instance's, made here once at start.
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import { MemoryExportLinks, type ExportLinkStore } from '../exports/links.ts';
import type { BucketSettings, BucketStore } from '../limits/throttle/buckets.ts';
import type { CacheEvent, ResponseCache, ResponseCacheSettings, ResponseCacheStore } from '../response-cache/store.ts';
import type { MemoryTrustedDocuments, TrustedDocumentStore } from '../trusted-documents/manifest.ts';
import { RedisBuckets } from './buckets.ts';
import { SharedPersistedQueries, SharedTrustedDocuments } from './documents.ts';
import { RedisExportLinks } from './export-links.ts';
import { SharedRedis, type RedisState } from './redis.ts';
import { SharedResponseCache } from './response-cache.ts';
import { RedisTailCoordinator } from './tail-leases.ts';
import { ALONE, type TailCoordinator } from '../domains/protection-devices/tail/coordination.ts';

export interface SharedState {
  /** `connected` or `unreachable` with Redis; undefined without REDIS_URL. */
  readonly redisState: RedisState | undefined;
  buckets(settings: BucketSettings): BucketStore | undefined;
  exportLinks(): ExportLinkStore;
  persistedQueries(local: KeyValueCache<string>): KeyValueCache<string>;
  trustedDocuments: ((own: MemoryTrustedDocuments) => TrustedDocumentStore) | undefined;
  responseCache(local: ResponseCache, settings: ResponseCacheSettings, onEvent: (event: CacheEvent) => void): ResponseCacheStore;
  /** Which replica polls each traffic tail; `pollIntervalMs` sizes the lease. */
  tailCoordinator(pollIntervalMs: number): TailCoordinator;
  close(): Promise<void>;
}

/** Each replica alone: its own memory. */
const LOCAL: SharedState = {
  redisState: undefined,
  buckets: () => undefined,
  exportLinks: () => new MemoryExportLinks(),
  persistedQueries: (local) => local,
  trustedDocuments: undefined,
  responseCache: (local) => local,
  tailCoordinator: () => ALONE,
  close: async () => {},
};

export async function sharedState(redisUrl: string | undefined, logger: Logger, registry: Registry): Promise<SharedState> {
  if (redisUrl === undefined) return LOCAL;
  const connected = new Gauge({ name: 'redis_connected', help: 'Whether the shared state (REDIS_URL) is reachable: 1, or 0 while each replica uses its local state', registers: [registry] });
  // What must be redone when Redis returns: invalidations made without it, documents to share.
  const onReturn: (() => Promise<void>)[] = [];
  const closing: (() => void)[] = [];
  const redis = new SharedRedis({
    url: redisUrl,
    logger,
    onState: (state) => connected.set(state === 'connected' ? 1 : 0),
    onReconnect: () => {
      for (const redo of onReturn) void redo().catch(() => {});
    },
  });
  connected.set(0);
  await redis.ready();
  return {
    get redisState() {
      return redis.state;
    },
    buckets: (settings) => new RedisBuckets(redis, settings),
    exportLinks: () => new RedisExportLinks(redis),
    persistedQueries: (local) => new SharedPersistedQueries(redis, local),
    trustedDocuments: (own) => {
      const shared = new SharedTrustedDocuments(redis, own);
      void shared.publish();
      onReturn.push(() => shared.publish());
      return shared;
    },
    responseCache: (local, settings, onEvent) => {
      const shared = new SharedResponseCache(redis, local, settings, onEvent);
      onReturn.push(() => shared.replay());
      return shared;
    },
    tailCoordinator: (pollIntervalMs) => {
      // A dead holder's pollers are taken over within three of its polls (at least 3 s).
      const coordinator = new RedisTailCoordinator(redis, Math.max(3_000, pollIntervalMs * 3));
      closing.push(() => coordinator.close());
      return coordinator;
    },
    close: async () => {
      for (const close of closing) close();
      await redis.close();
    },
  };
}
