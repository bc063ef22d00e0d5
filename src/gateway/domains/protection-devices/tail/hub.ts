// The traffic tails of one gateway: its pollers, keyed by device and normalised filter, and the
// admission of each subscriber. A subscriber is admitted only after a call made with its own key
// shows that it may read the device; that call also fixes where its entries start (the newest
// entry then, or `afterId`, whose missed entries are replayed first).
import type { TrafficLogFilter } from '../../../generated/resolvers.ts';
import { badUserInput } from '../../../errors.ts';
import type { UpstreamClient } from '../../../upstream/client.ts';
import { requirePositiveId } from '../../common/arguments.ts';
import { listTraffic } from '../operations.ts';
import { trafficFilter } from '../list-arguments.ts';
import { tailGap } from './errors.ts';
import { ALONE, type TailCoordinator } from './coordination.ts';
import { EntryFeed, type TailEvent } from './feed.ts';
import { TrafficPoller, type Subscriber } from './poller.ts';
import { readNewest, type TailFilter } from './read-newest.ts';
import { MAX_QUEUED, MAX_REPLAY, type TailSettings } from './settings.ts';

export interface TailArgs {
  deviceId: string;
  filter?: TrafficLogFilter | null;
  afterId?: string | null;
}

export interface TailHubDeps {
  settings: TailSettings;
  /** An upstream client acting with this key (deadlines, breaker, retry budget, metrics), cancelled by the signal. */
  client(apiKey: string, signal: AbortSignal): UpstreamClient;
  onPoll(outcome: string, delivered: number): void;
  /** With replicas, which one polls each (device, filter); alone, this one. */
  coordinator?: TailCoordinator;
}

const ENTRY_ID = /^(0|[1-9]\d{0,15})$/;

export class TailHub {
  readonly #pollers = new Map<string, TrafficPoller>();
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
   * Admits a subscriber: its key's call (made with `client`, the subscription's own, which acts
   * with `apiKey`), then its replay, then its place in the shared poller. Throws (before any
   * entry) what the call threw: NOT_FOUND, FORBIDDEN, BAD_USER_INPUT, TAIL_GAP.
   */
  async subscribe(args: TailArgs, apiKey: string, client: UpstreamClient, signal: AbortSignal): Promise<AsyncIterableIterator<TailEvent>> {
    const deviceId = requirePositiveId(args.deviceId, 'deviceId');
    if (args.afterId != null && !ENTRY_ID.test(args.afterId)) {
      throw badUserInput(`afterId must be the id of a traffic log entry (a non-negative integer), got "${args.afterId.slice(0, 40)}".`, 'afterId');
    }
    const filter = trafficFilter(args.filter);
    const { cursor, replay } = args.afterId == null ? await this.#newest(client, deviceId, filter) : await this.#resume(client, deviceId, filter, Number(args.afterId));
    if (this.#closed || signal.aborted) return done();

    const key = JSON.stringify([deviceId, filter.actions ?? null, filter.search ?? null]);
    let poller = this.#pollers.get(key);
    if (poller === undefined) {
      const created: TrafficPoller = new TrafficPoller(deviceId, filter, {
        settings: this.deps.settings,
        client: this.deps.client,
        check: (checkClient) => listTraffic(checkClient, deviceId, { limit: 1, order: '-id', ...filter }),
        onPoll: this.deps.onPoll,
        onIdle: () => {
          if (this.#pollers.get(key) === created) this.#pollers.delete(key);
        },
        coordinator: this.deps.coordinator ?? ALONE,
        key,
      });
      poller = created;
      this.#pollers.set(key, poller);
    }
    const joined = poller;
    let subscriber: Subscriber | undefined;
    this.#subscriptions += 1;
    const feed = new EntryFeed(cursor, MAX_QUEUED, () => {
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
  async #newest(client: UpstreamClient, deviceId: string, filter: TailFilter) {
    const page = await listTraffic(client, deviceId, { limit: 1, order: '-id', ...filter });
    return { cursor: page.data[0]?.id ?? 0, replay: [] };
  }

  /** A resumed one replays the matching entries after `afterId`: at most MAX_REPLAY of them. */
  async #resume(client: UpstreamClient, deviceId: string, filter: TailFilter, afterId: number) {
    const read = await readNewest(client, deviceId, filter, afterId, { first: MAX_REPLAY, next: 1, max: MAX_REPLAY + 1 });
    if (!read.complete) {
      throw tailGap(`More than ${MAX_REPLAY} entries were logged after entry ${afterId}; read them with trafficLog, then subscribe again with afterId set to the newest.`);
    }
    if (read.entries.length === 0) {
      // Nothing after it: an id beyond the device's whole log cannot be one the client received.
      const newest = await listTraffic(client, deviceId, { limit: 1, order: '-id' });
      if (afterId > (newest.data[0]?.id ?? 0)) {
        throw badUserInput(`afterId ${afterId} is not an entry of this device's log: its newest entry is ${newest.data[0]?.id ?? 'none'}.`, 'afterId');
      }
    }
    return { cursor: afterId, replay: read.entries };
  }
}

/** The gateway closed while a subscriber was being admitted: its subscription just completes. */
function done(): AsyncIterableIterator<TailEvent> {
  const feed = new EntryFeed(0, 0, () => {});
  feed.finish();
  return feed;
}
