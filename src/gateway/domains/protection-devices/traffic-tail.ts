// `Subscription.trafficLogEntryAdded`: a device's traffic log, under one filter, followed by the
// gateway's live tail (live-tail/). This domain says what the log is (how a page of it is read
// from v1, newest first, and its name, so that equal filters share one poller); each event the
// tail yields becomes the entry in its GraphQL shape, or the error that ends the subscription
// (thrown from `resolve`, so the client gets it as a GraphQL error with its code, then `complete`).
import { badUserInput } from '../../errors.ts';
import type { SubscriptionResolvers } from '../../generated/resolvers.ts';
import type { TailEvent, TailSource } from '../../live-tail/index.ts';
import { requirePositiveId } from '../common/arguments.ts';
import { trafficFilter } from './list-arguments.ts';
import { listTraffic } from './operations.ts';
import { trafficLogEntry } from './traffic.ts';
import { ASCENDING, liveWindows } from './traffic-window.ts';
import { WINDOW_SEARCH_CALLS } from '../../limits/window-estimate.ts';
import type { WireTrafficLogEntry } from './wire.ts';

const ENTRY_ID = /^(0|[1-9]\d{0,15})$/;

/**
 * The log of `deviceId` under `filter` (normalised: equal filters, one poller). Every read is live:
 * the tail's client has no cache, and each read says so too.
 */
function trafficSource(deviceId: string, filter: { actions?: string[]; search?: string }): TailSource<WireTrafficLogEntry> {
  const live = { live: true };
  return {
    key: JSON.stringify([deviceId, filter.actions ?? null, filter.search ?? null]),
    newest: async (client, { limit, offset }) => (await listTraffic(client, deviceId, { limit, offset, order: '-id', ...filter }, live)).data,
    newestOfAll: async (client) => (await listTraffic(client, deviceId, { limit: 1, order: '-id' }, live)).data[0]?.id ?? 0,
    // With `from` and no `afterId`: the first entry dated at or after `from`, found by the window
    // search (so replayed like `afterId`, up to the replay's limit); undefined when none is yet.
    startAt: async (client, from) => {
      const { windows, page } = liveWindows(client);
      const { lower, upper } = await windows.bounds(deviceId, filter, { from });
      if (lower >= upper) return undefined;
      const first = (await page(deviceId, { limit: 1, offset: lower, order: ASCENDING, ...filter })).data[0];
      return first === undefined ? undefined : Math.max(0, first.id - 1);
    },
    // One bound of a window: about half of what both cost, and the read of the entry it found.
    startAtCalls: Math.ceil(WINDOW_SEARCH_CALLS / 2) + 1,
  };
}

/**
 * The tail's events without the entries dated before `from`. Its `return` reaches the tail at
 * once (a generator's would wait for the next entry), so a client that leaves is let go.
 */
function datedFrom(events: AsyncIterableIterator<TailEvent<WireTrafficLogEntry>>, from: number): AsyncIterableIterator<TailEvent<WireTrafficLogEntry>> {
  const iterator: AsyncIterableIterator<TailEvent<WireTrafficLogEntry>> = {
    async next() {
      for (;;) {
        const result = await events.next();
        if (result.done || !('entry' in result.value) || Date.parse(result.value.entry.date_time) >= from) return result;
      }
    },
    return: (value?: unknown) => events.return?.(value) ?? Promise.resolve({ done: true, value: undefined }),
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

export const trafficLogEntryAdded = {
  subscribe: async (_parent, args, context) => {
    const deviceId = requirePositiveId(args.deviceId, 'deviceId');
    if (args.afterId != null && !ENTRY_ID.test(args.afterId)) {
      throw badUserInput(`afterId must be the id of a traffic log entry (a non-negative integer), got "${args.afterId.slice(0, 40)}".`, 'afterId');
    }
    if (args.filter?.to != null) throw badUserInput('filter.to is not allowed on a tail: its entries are yet to come. Page trafficLog for a closed window.', 'filter.to');
    const filter = trafficFilter(args.filter);
    const source = trafficSource(deviceId, filter);
    const from = args.filter?.from?.getTime();
    const start = { ...(args.afterId == null ? {} : { afterId: Number(args.afterId) }), ...(from === undefined ? {} : { at: from }) };
    const events = await context.tail.subscribe(source, start, context.apiKey ?? '', context.signal);
    return from === undefined ? events : datedFrom(events, from);
  },
  resolve: (event: TailEvent<WireTrafficLogEntry>) => {
    if ('error' in event) throw event.error;
    return trafficLogEntry(event.entry);
  },
} satisfies NonNullable<SubscriptionResolvers['trafficLogEntryAdded']>;
