// A gateway without REDIS_URL never loads the Redis client: each feature's Redis adapter imports
// only the connection's types, and shared-state/ loads the connection itself only when REDIS_URL is
// set. The client is replaced here by a stand-in that records being loaded.
import pino from 'pino';
import { Registry } from 'prom-client';
import { expect, it, vi } from 'vitest';

const loaded: string[] = [];
vi.mock('ioredis', () => {
  loaded.push('ioredis');
  return { Redis: class {} };
});

it('loads no Redis client with the features and the local state, and loads it with the connection', async () => {
  await Promise.all([
    import('../../../../src/gateway/throttling/index.ts'),
    import('../../../../src/gateway/live-tail/index.ts'),
    import('../../../../src/gateway/export-links/index.ts'),
    import('../../../../src/gateway/trusted-documents/index.ts'),
    import('../../../../src/gateway/response-cache/index.ts'),
    import('../../../../src/gateway/executor/apollo-caches.ts'),
  ]);
  const { sharedState } = await import('../../../../src/gateway/shared-state/index.ts');
  const local = await sharedState(undefined, pino({ enabled: false }), new Registry());
  expect(local.redis).toBeUndefined();
  expect(loaded).toEqual([]);
  await import('../../../../src/gateway/shared-state/redis.ts');
  expect(loaded).toEqual(['ioredis']);
});
