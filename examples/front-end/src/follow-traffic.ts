// Following a device's live traffic with graphql-ws, through gateway restarts. On a deploy the
// gateway closes its sockets with 1012 (Service Restart), which graphql-ws retries: it reconnects
// and sends the same subscribe payload again. The payload keeps the id of the last entry received
// as `afterId`, so the new subscription replays what arrived meanwhile: no entry lost or doubled.
import { print } from 'graphql';
import type { Client } from 'graphql-ws';
import { graphql } from './gql';
import type { ResultOf } from '@graphql-typed-document-node/core';

export const TrafficTail = graphql(`
  subscription TrafficTail($deviceId: ID!, $afterId: ID) {
    trafficLogEntryAdded(deviceId: $deviceId, afterId: $afterId) { id dateTime type srcIp logMessage }
  }
`);

export type TrafficEntry = NonNullable<ResultOf<typeof TrafficTail>['trafficLogEntryAdded']>;

/** Calls `onEntry` for each entry the device logs from now on (or after `afterId`); returns the stop. */
export function followTraffic(client: Client, deviceId: string, onEntry: (entry: TrafficEntry) => void, afterId?: string): () => void {
  const query = print(TrafficTail);
  const variables: { deviceId: string; afterId: string | null } = { deviceId, afterId: afterId ?? null };
  return client.subscribe<ResultOf<typeof TrafficTail>>(
    { query, variables },
    {
      next({ data, errors }) {
        const entry = data?.trafficLogEntryAdded;
        if (entry) {
          variables.afterId = entry.id; // what a reconnect resumes after
          onEntry(entry);
        }
        if (errors) console.error(errors.map((error) => error.message).join('; '));
      },
      error: (error) => console.error('traffic tail ended:', error),
      complete: () => {},
    },
  );
}
