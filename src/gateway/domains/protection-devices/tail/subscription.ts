// `Subscription.trafficLogEntryAdded`: its source is the subscriber's feed from the gateway's tail
// hub; each event becomes the entry in its GraphQL shape, or the error that ends the subscription
// (thrown from `resolve`, so the client gets it as a GraphQL error with its code, then `complete`).
import type { SubscriptionResolvers } from '../../../generated/resolvers.ts';
import { trafficLogEntry } from '../traffic.ts';
import type { TailEvent } from './feed.ts';

export const trafficLogEntryAdded = {
  subscribe: (_parent, args, context) => context.tail.subscribe(args, context.apiKey ?? '', context.upstream, context.signal),
  resolve: (event: TailEvent) => {
    if ('error' in event) throw event.error;
    return trafficLogEntry(event.entry);
  },
} satisfies NonNullable<SubscriptionResolvers['trafficLogEntryAdded']>;
