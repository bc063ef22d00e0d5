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
import type { WireTrafficLogEntry } from './wire.ts';

const ENTRY_ID = /^(0|[1-9]\d{0,15})$/;

/** The log of `deviceId` under `filter` (normalised: equal filters, one poller). */
function trafficSource(deviceId: string, filter: { actions?: string[]; search?: string }): TailSource<WireTrafficLogEntry> {
  return {
    key: JSON.stringify([deviceId, filter.actions ?? null, filter.search ?? null]),
    newest: async (client, { limit, offset }) => (await listTraffic(client, deviceId, { limit, offset, order: '-id', ...filter })).data,
    newestOfAll: async (client) => (await listTraffic(client, deviceId, { limit: 1, order: '-id' })).data[0]?.id ?? 0,
  };
}

export const trafficLogEntryAdded = {
  subscribe: async (_parent, args, context) => {
    const deviceId = requirePositiveId(args.deviceId, 'deviceId');
    if (args.afterId != null && !ENTRY_ID.test(args.afterId)) {
      throw badUserInput(`afterId must be the id of a traffic log entry (a non-negative integer), got "${args.afterId.slice(0, 40)}".`, 'afterId');
    }
    const source = trafficSource(deviceId, trafficFilter(args.filter));
    return context.tail.subscribe(source, args.afterId == null ? undefined : Number(args.afterId), context.apiKey ?? '', context.upstream, context.signal);
  },
  resolve: (event: TailEvent<WireTrafficLogEntry>) => {
    if ('error' in event) throw event.error;
    return trafficLogEntry(event.entry);
  },
} satisfies NonNullable<SubscriptionResolvers['trafficLogEntryAdded']>;
