// The gateway's one connection to Redis (REDIS_URL), through which replicas share their state, and
// the rule every shared store follows: Redis is never a single point of failure. A command runs
// only while the connection is up and must answer within a short deadline; otherwise the store
// falls back to its local state, and the request goes on. The loss is logged once, the return
// once; `/metrics` and `/readyz` show which it is. The stores are the features' own, each in its
// feature's folder; they import only this file's types, so that ioredis is loaded (by index.ts)
// only with REDIS_URL.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { IN_PROCESS, type LocalState } from './local-state.ts';

/** A command slower than this is a failure: the request falls back rather than wait. */
const COMMAND_TIMEOUT_MS = 250;
const CONNECT_TIMEOUT_MS = 2_000;
/** Reconnection: soon at first, then every two seconds for as long as it takes. */
const reconnectDelay = (times: number) => Math.min(times * 100, 2_000);

export type RedisState = 'connected' | 'unreachable';

export interface SharedRedisOptions {
  url: string;
  logger: Logger;
  /** Hears each change of state (metrics). */
  onState?: (state: RedisState) => void;
  /** Called each time the connection comes back (stores replay what they did alone meanwhile). */
  onReconnect?: () => void;
  /** Where the stores' local state lives while Redis is unreachable; this process's memory unless given. */
  local?: LocalState;
}

export class SharedRedis {
  readonly client: Redis;
  /** Where each store keeps its local state (its fallback): this process's memory, or a worker's primary's. */
  readonly local: LocalState;
  #state: RedisState = 'unreachable';
  #everConnected = false;
  readonly #options: SharedRedisOptions;
  readonly #onReturn: (() => Promise<unknown>)[] = [];
  readonly #onClose: (() => void)[] = [];

  constructor(options: SharedRedisOptions) {
    this.#options = options;
    this.local = options.local ?? IN_PROCESS;
    this.client = new Redis(options.url, {
      // Commands fail at once while disconnected (the store falls back) instead of queueing.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      retryStrategy: reconnectDelay,
      lazyConnect: false,
      // The URL may hold a password: never in a log line, an error or a metric.
      showFriendlyErrorStack: false,
    });
    this.client.on('ready', () => this.#set('connected'));
    this.client.on('close', () => this.#set('unreachable'));
    // ioredis reports each failed connection attempt: the state change above is the one line.
    this.client.on('error', () => {});
  }

  get state(): RedisState {
    return this.#state;
  }

  get connected(): boolean {
    return this.#state === 'connected';
  }

  /**
   * `command` against Redis while it is connected, else (or when it fails or is slow) `fallback`:
   * never an error to the caller because Redis failed.
   */
  async run<T>(command: (redis: Redis) => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    if (!this.connected) return fallback();
    try {
      return await command(this.client);
    } catch {
      return fallback();
    }
  }

  /** Waits (bounded) for the first connection: a start with Redis up begins shared; one without says so once. */
  async ready(timeoutMs = CONNECT_TIMEOUT_MS): Promise<void> {
    if (this.connected) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.client.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.client.once('ready', done);
    });
    if (!this.connected) this.#options.logger.warn('Redis (REDIS_URL) does not answer: serving with this replica\'s local state until it does');
  }

  /**
   * What a store must redo each time Redis comes back (share what it holds, replay what it did
   * alone meanwhile): the stores are the features' own, and register here as they are made.
   */
  whenBack(redo: () => Promise<unknown>): void {
    this.#onReturn.push(redo);
  }

  /** What a store must end before the connection closes (a connection of its own, as pub/sub needs). */
  whenClosing(close: () => void): void {
    this.#onClose.push(close);
  }

  async close(): Promise<void> {
    for (const close of this.#onClose) close();
    this.client.disconnect();
  }

  #set(state: RedisState): void {
    if (state === this.#state) return;
    const { logger } = this.#options;
    this.#state = state;
    this.#options.onState?.(state);
    if (state === 'connected') {
      if (this.#everConnected) {
        logger.info('Redis (REDIS_URL) is reachable again: state is shared across replicas again');
        for (const redo of this.#onReturn) void redo().catch(() => {});
        this.#options.onReconnect?.();
      }
      this.#everConnected = true;
    } else {
      logger.warn('Redis (REDIS_URL) is unreachable: serving with this replica\'s local state until it returns');
    }
  }
}
