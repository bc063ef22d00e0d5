// The live tail of one gateway, as its configuration asks for it: the hub its subscriptions join,
// its metrics on the gateway's registry, and, with REDIS_URL, the leases and pub/sub through which
// one replica polls each log for all of them (redis-leases.ts); alone, it polls for itself.
import type { Registry } from 'prom-client';
import type { SharedRedis } from '../shared-state/redis.ts';
import type { Charge } from '../throttling/plugin.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { ALONE } from './coordination.ts';
import { TailHub } from './hub.ts';
import { TailMetrics } from './metrics.ts';
import { RedisTailCoordinator } from './redis-leases.ts';
import type { TailSettings } from './settings.ts';

export interface LiveTailOptions {
  settings: TailSettings;
  /**
   * An upstream client acting with this key (deadlines, breaker, retry budget, metrics), cancelled
   * by the signal, with no response cache: every read of the tail asks the upstream itself.
   * `beforeCall` counts its calls.
   */
  client(apiKey: string, signal: AbortSignal, beforeCall?: () => void): UpstreamClient;
  registry: Registry;
  /** REDIS_URL's connection: replicas share their pollers. */
  redis?: SharedRedis;
  /** Takes upstream calls from a key's bucket (the gateway's admission): subscribing and polling are charged. */
  charge?(apiKey: string, calls: number): Promise<Charge>;
}

export function liveTail(options: LiveTailOptions): TailHub {
  const metrics = new TailMetrics(options.registry);
  let coordinator = ALONE;
  if (options.redis) {
    // A dead holder's pollers are taken over within three of its polls (at least 3 s).
    const leases = new RedisTailCoordinator(options.redis, Math.max(3_000, options.settings.pollIntervalMs * 3));
    options.redis.whenClosing(() => leases.close());
    coordinator = leases;
  }
  const hub = new TailHub({ settings: options.settings, client: options.client, onPoll: (outcome, delivered) => metrics.countPoll(outcome, delivered), coordinator, ...(options.charge ? { charge: options.charge } : {}) });
  metrics.watch(() => ({ subscriptions: hub.subscriptions, pollers: hub.pollers }));
  return hub;
}

export type { TailHub, TailStart } from './hub.ts';
export type { TailSource, TailEntry } from './source.ts';
export type { TailEvent } from './feed.ts';
