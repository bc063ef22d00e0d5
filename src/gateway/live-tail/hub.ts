// The live tails of one gateway: its pollers, one per source (a device's log under one filter),
// and the admission of each subscriber. A subscriber is admitted only after a call made with its
// own key shows that it may read the log; that call also fixes where its entries start (the newest
// entry then, or `afterId`, whose missed entries are replayed first).
//
// Pollers are a budget each key spends: a key may follow at most TAIL_MAX_POLLERS_PER_KEY distinct
// logs at once (however many subscribers share each), and an admission's calls are charged to the
// key's bucket like any operation's. Every read of an admission (the newest entry, the search of
// where an instant begins, a resumption's replay) is made with the tail's own client, which asks
// the upstream itself, never a cached read: where a subscription starts is what the log holds now.
import { badUserInput, ErrorCode, GatewayError } from '../errors.ts';
import { keyHash } from '../key-hash.ts';
import type { Charge } from '../throttling/plugin.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { tailGap } from './errors.ts';
import { ALONE, type TailCoordinator } from './coordination.ts';
import { EntryFeed, type TailEvent } from './feed.ts';
import { TailPoller, type Subscriber } from './poller.ts';
import { readNewest } from './read-newest.ts';
import { MAX_QUEUED, MAX_REPLAY, type TailSettings } from './settings.ts';
import type { TailEntry, TailSource } from './source.ts';

export interface TailHubDeps {
  settings: TailSettings;
  /**
   * An upstream client acting with this key (deadlines, breaker, retry budget, metrics), cancelled
   * by the signal, that never answers from a cache; `beforeCall` counts its calls.
   */
  client(apiKey: string, signal: AbortSignal, beforeCall?: () => void): UpstreamClient;
  onPoll(outcome: string, delivered: number): void;
  /** With replicas, which one polls each source; alone, this one. */
  coordinator?: TailCoordinator;
  /** Takes upstream calls from a key's bucket (throttling); absent or always granted when it is off. */
  charge?(apiKey: string, calls: number): Promise<Charge>;
}

/** Calls an admission makes: a page of one; a resumed one its replay and the log's newest id. */
const ADMISSION_CALLS = { fresh: 1, resumed: 2 };

/**
 * Where a subscription starts: after `afterId` (the entries it missed replayed first), else at the
 * instant `at` (the entries from the first dated at or after it replayed, as after an id), else
 * from now.
 */
export interface TailStart {
  afterId?: number;
  at?: number;
}

export class TailHub {
  /** Each poller under its source's key: a key names one source, so its poller is of that source's entries. */
  readonly #pollers = new Map<string, { stop(): void }>();
  /**
   * Each source's admission read under way: subscribers that arrive while it runs start where it
   * says, so that subscribers who subscribe together begin at the same entry, whatever the order
   * their own reads come back in.
   */
  readonly #reading = new Map<string, Promise<number>>();
  /** Under each key's hash: the sources its subscriptions follow (admitted or being admitted), with how many each. */
  readonly #followed = new Map<string, Map<string, number>>();
  #subscriptions = 0;
  #closed = false;

  constructor(private readonly deps: TailHubDeps) {}

  get pollers(): number {
    return this.#pollers.size;
  }

  get subscriptions(): number {
    return this.#subscriptions;
  }

  /**
   * Admits a subscriber of `source`, from the entry after `afterId` or from now: its key's call
   * (made with `client`, the subscription's own, which acts with `apiKey`), then its replay, then
   * its place in the source's shared poller. Throws (before any entry) what the call threw:
   * NOT_FOUND, FORBIDDEN, BAD_USER_INPUT, TAIL_GAP.
   */
  async subscribe<E extends TailEntry>(source: TailSource<E>, start: TailStart, apiKey: string, signal: AbortSignal): Promise<AsyncIterableIterator<TailEvent<E>>> {
    const leave = this.#follow(apiKey, source.key);
    let feed: EntryFeed<E>;
    try {
      const { afterId } = start;
      const at = afterId === undefined && source.startAt ? start.at : undefined;
      const expected =
        afterId !== undefined ? ADMISSION_CALLS.resumed : at !== undefined ? ADMISSION_CALLS.fresh + (source.startAtCalls ?? 1) + ADMISSION_CALLS.resumed : ADMISSION_CALLS.fresh;
      const charge = await this.deps.charge?.(apiKey, expected);
      if (charge && !charge.ok) {
        throw new GatewayError(`Subscribing needs upstream calls this key does not have left (${charge.remaining}): retry in ${charge.retryAfterS} s.`, {
          code: ErrorCode.RATE_LIMITED,
          retryAfter: charge.retryAfterS,
        });
      }
      let calls = 0;
      const client = this.deps.client(apiKey, signal, () => (calls += 1));
      let started: { cursor: number; replay: readonly E[] };
      try {
        if (afterId !== undefined) started = await this.#resume(client, source, afterId);
        else if (at !== undefined) started = await this.#startAt(client, source, at);
        else started = await this.#newest(client, source);
      } finally {
        // A start at an instant costs what its search took; the others, their fixed calls.
        if (charge?.ok && at !== undefined) void charge.settle(calls).catch(() => {});
      }
      const { cursor, replay } = started;
      if (this.#closed || signal.aborted) {
        leave();
        return done();
      }
      feed = this.#join(source, cursor, replay, apiKey, leave);
    } catch (error) {
      leave();
      throw error;
    }
    return feed;
  }

  /**
   * Counts a subscription of `apiKey` to `sourceKey`, or refuses it with TOO_MANY_SUBSCRIPTIONS
   * when it would be one more distinct log than the key may follow. Returns how to uncount it
   * (once, whatever calls it).
   */
  #follow(apiKey: string, sourceKey: string): () => void {
    const owner = keyHash(apiKey);
    let sources = this.#followed.get(owner);
    const max = this.deps.settings.maxPollersPerKey;
    if (!sources?.has(sourceKey) && (sources?.size ?? 0) >= max) {
      throw new GatewayError(
        `This key already follows ${max} distinct device logs and filters, the most allowed (TAIL_MAX_POLLERS_PER_KEY); subscribe to one of those, or complete one first.`,
        { code: ErrorCode.TOO_MANY_SUBSCRIPTIONS },
      );
    }
    if (sources === undefined) this.#followed.set(owner, (sources = new Map()));
    sources.set(sourceKey, (sources.get(sourceKey) ?? 0) + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const count = (sources.get(sourceKey) ?? 1) - 1;
      if (count > 0) sources.set(sourceKey, count);
      else sources.delete(sourceKey);
      if (sources.size === 0 && this.#followed.get(owner) === sources) this.#followed.delete(owner);
    };
  }

  /** The admitted subscriber's feed, from `cursor` with its replay first, in the source's shared poller. */
  #join<E extends TailEntry>(source: TailSource<E>, cursor: number, replay: readonly E[], apiKey: string, leave: () => void): EntryFeed<E> {
    const { key } = source;
    let poller = this.#pollers.get(key) as TailPoller<E> | undefined;
    if (poller === undefined) {
      const created: TailPoller<E> = new TailPoller(source, {
        settings: this.deps.settings,
        client: this.deps.client,
        onPoll: this.deps.onPoll,
        onIdle: () => {
          if (this.#pollers.get(key) === created) this.#pollers.delete(key);
        },
        coordinator: this.deps.coordinator ?? ALONE,
        ...(this.deps.charge ? { charge: this.deps.charge } : {}),
      });
      poller = created;
      this.#pollers.set(key, poller);
    }
    const joined = poller;
    let subscriber: Subscriber<E> | undefined;
    this.#subscriptions += 1;
    const feed = new EntryFeed<E>(cursor, MAX_QUEUED, () => {
      this.#subscriptions -= 1;
      leave();
      if (subscriber) joined.remove(subscriber);
    });
    feed.push(replay);
    if (feed.ended) return feed;
    subscriber = { feed, apiKey, checkedAt: performance.now() };
    joined.add(subscriber);
    return feed;
  }

  /** Stops every poller; their subscriptions complete. */
  close(): void {
    this.#closed = true;
    for (const poller of this.#pollers.values()) poller.stop();
    this.#pollers.clear();
  }

  /** A new subscription starts after the newest matching entry. */
  async #newest<E extends TailEntry>(client: UpstreamClient, source: TailSource<E>): Promise<{ cursor: number; replay: readonly E[] }> {
    // Taken as the subscribe message is handled: a read already under way began no later than
    // this subscriber arrived, so starting where it says misses nothing logged since.
    const shared = this.#reading.get(source.key);
    // The subscriber's own read: it shows that its key may read the log, whoever's read sets the start.
    const own = source.newest(client, { limit: 1 }).then((page) => page[0]?.id ?? 0);
    if (shared === undefined) {
      this.#reading.set(source.key, own);
      const forget = () => {
        if (this.#reading.get(source.key) === own) this.#reading.delete(source.key);
      };
      own.then(forget, forget);
    }
    const mine = await own;
    const cursor = shared === undefined ? mine : Math.min(mine, await shared.catch(() => mine));
    return { cursor, replay: [] };
  }

  /**
   * One that starts at an instant replays from the first entry dated at or after it, as after an
   * id. Its key is shown first, and the newest entry then read: when no entry is dated at or after
   * the instant yet, the subscription starts there, so that one logged during the search is not
   * missed (the domain drops what is dated earlier).
   */
  async #startAt<E extends TailEntry>(client: UpstreamClient, source: TailSource<E>, at: number): Promise<{ cursor: number; replay: readonly E[] }> {
    const now = await this.#newest(client, source);
    const before = await source.startAt!(client, at);
    // An entry logged after that read is delivered whatever it is dated: no earlier start is needed.
    return before === undefined || before >= now.cursor ? now : this.#resume(client, source, before);
  }

  /** A resumed one replays the matching entries after `afterId`: at most MAX_REPLAY of them. */
  async #resume<E extends TailEntry>(client: UpstreamClient, source: TailSource<E>, afterId: number) {
    const read = await readNewest(client, source, afterId, { first: MAX_REPLAY, next: 1, max: MAX_REPLAY + 1 });
    if (!read.complete) {
      throw tailGap(`More than ${MAX_REPLAY} entries were logged after entry ${afterId}; read them with trafficLog, then subscribe again with afterId set to the newest.`);
    }
    if (read.entries.length === 0) {
      // Nothing after it: an id beyond the device's whole log cannot be one the client received.
      const newest = await source.newestOfAll(client);
      if (afterId > newest) {
        throw badUserInput(`afterId ${afterId} is not an entry of this device's log: its newest entry is ${newest || 'none'}.`, 'afterId');
      }
    }
    return { cursor: afterId, replay: read.entries };
  }
}

/** The gateway closed while a subscriber was being admitted: its subscription just completes. */
function done<E extends TailEntry>(): AsyncIterableIterator<TailEvent<E>> {
  const feed = new EntryFeed<E>(0, 0, () => {});
  feed.finish();
  return feed;
}
