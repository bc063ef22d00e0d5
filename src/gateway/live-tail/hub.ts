// The live tails of one gateway: its pollers, one per source (a device's log under one filter),
// and the admission of each subscriber. A subscriber is admitted only after a call made with its
// own key shows that it may read the log; that call also fixes where its entries start (the newest
// entry then, or `afterId`, whose missed entries are replayed first).
import { badUserInput } from '../errors.ts';
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
  /** An upstream client acting with this key (deadlines, breaker, retry budget, metrics), cancelled by the signal. */
  client(apiKey: string, signal: AbortSignal): UpstreamClient;
  onPoll(outcome: string, delivered: number): void;
  /** With replicas, which one polls each source; alone, this one. */
  coordinator?: TailCoordinator;
}

export class TailHub {
  /** Each poller under its source's key: a key names one source, so its poller is of that source's entries. */
  readonly #pollers = new Map<string, { stop(): void }>();
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
  async subscribe<E extends TailEntry>(source: TailSource<E>, afterId: number | undefined, apiKey: string, client: UpstreamClient, signal: AbortSignal): Promise<AsyncIterableIterator<TailEvent<E>>> {
    const { cursor, replay } = afterId === undefined ? await this.#newest(client, source) : await this.#resume(client, source, afterId);
    if (this.#closed || signal.aborted) return done();

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
      });
      poller = created;
      this.#pollers.set(key, poller);
    }
    const joined = poller;
    let subscriber: Subscriber<E> | undefined;
    this.#subscriptions += 1;
    const feed = new EntryFeed<E>(cursor, MAX_QUEUED, () => {
      this.#subscriptions -= 1;
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
    const page = await source.newest(client, { limit: 1 });
    return { cursor: page[0]?.id ?? 0, replay: [] };
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
