// The live tail across replicas: a lease per poller in Redis (held by the replica that polls,
// renewed at each poll, gone a few seconds after its holder dies so that another replica with
// subscribers takes over), and pub/sub for what the holder reads. While Redis is unreachable,
// every replica polls for its own subscribers (leading alone).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { keyHash } from '../key-hash.ts';
import type { SharedRedis } from '../shared-state/redis.ts';
import type { TailCoordinator, TailMessage } from './coordination.ts';
import type { TailEntry } from './source.ts';

const LEASE = 'gw:tail:lease:';
const CHANNEL = 'gw:tail:entries:';

// KEYS[1] the lease; ARGV: this replica, the lease's length (ms). 1: held (renewed or taken).
const LEAD = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

type Script = (...args: (string | number)[]) => Promise<unknown>;

/** Poller keys carry a filter's search text: Redis gets their hash, as it gets API keys'. */
const named = keyHash;

export class RedisTailCoordinator implements TailCoordinator {
  readonly #replica = randomUUID();
  readonly #listeners = new Map<string, Set<(message: TailMessage) => void>>();
  readonly #subscriber: Redis;
  readonly #lead: Script;
  readonly #release: Script;

  constructor(
    private readonly redis: SharedRedis,
    /** How long a lease lasts unrenewed: how soon another replica takes over a dead holder's poller. */
    private readonly leaseMs: number,
  ) {
    redis.client.defineCommand('gatewayTailLead', { numberOfKeys: 1, lua: LEAD });
    redis.client.defineCommand('gatewayTailRelease', { numberOfKeys: 1, lua: RELEASE });
    const client = redis.client as unknown as { gatewayTailLead: Script; gatewayTailRelease: Script };
    this.#lead = (...args) => client.gatewayTailLead(...args);
    this.#release = (...args) => client.gatewayTailRelease(...args);
    // Pub/sub needs a connection of its own; it resubscribes by itself after a reconnection.
    this.#subscriber = redis.client.duplicate({ enableOfflineQueue: true });
    this.#subscriber.on('error', () => {});
    this.#subscriber.on('message', (channel: string, text: string) => {
      const listeners = this.#listeners.get(channel);
      if (listeners === undefined) return;
      let message: TailMessage;
      try {
        message = JSON.parse(text) as TailMessage;
      } catch {
        return;
      }
      for (const listener of listeners) listener(message);
    });
  }

  lead(key: string): Promise<boolean> {
    return this.redis.run(
      async () => (await this.#lead(LEASE + named(key), this.#replica, this.leaseMs)) === 1,
      () => true,
    );
  }

  async release(key: string): Promise<void> {
    await this.redis.run(
      () => this.#release(LEASE + named(key), this.#replica),
      () => undefined,
    );
  }

  publish<E extends TailEntry>(key: string, message: TailMessage<E>): void {
    void this.redis.run(
      (client) => client.publish(CHANNEL + named(key), JSON.stringify(message)),
      () => 0,
    );
  }

  follow<E extends TailEntry>(key: string, onMessage: (message: TailMessage<E>) => void): () => void {
    const channel = CHANNEL + named(key);
    // What is published under a key is its source's: the entries heard are that source's type.
    const listener = onMessage as (message: TailMessage) => void;
    let listeners = this.#listeners.get(channel);
    if (listeners === undefined) {
      listeners = new Set();
      this.#listeners.set(channel, listeners);
      void this.#subscriber.subscribe(channel).catch(() => {});
    }
    listeners.add(listener);
    return () => {
      const current = this.#listeners.get(channel);
      if (current === undefined || !current.delete(listener) || current.size > 0) return;
      this.#listeners.delete(channel);
      void this.#subscriber.unsubscribe(channel).catch(() => {});
    };
  }

  close(): void {
    this.#subscriber.disconnect();
  }
}
