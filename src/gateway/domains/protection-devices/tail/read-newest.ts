// Reading a device's log back from its newest entry: what a poll and a resumed subscription both
// need. v1 has no "after id" filter, so the log is read ordered by `-id` until an entry at or
// below the cursor shows up. Entries logged while the pages are read push older ones further
// down, so a later page may repeat an entry (dropped here) but never skips one.
import type { UpstreamClient } from '../../../upstream/client.ts';
import { listTraffic } from '../operations.ts';
import type { WireTrafficLogEntry } from '../wire.ts';

export interface TailFilter {
  actions?: string[];
  search?: string;
}

export interface NewestEntries {
  /** The entries newer than the cursor that were read, in ascending id order. */
  entries: WireTrafficLogEntry[];
  /** False when the reading stopped at `max` before reaching the cursor: older ones were missed. */
  complete: boolean;
}

export async function readNewest(
  client: UpstreamClient,
  deviceId: string,
  filter: TailFilter,
  cursor: number,
  pages: { first: number; next: number; max: number },
): Promise<NewestEntries> {
  const found = new Map<number, WireTrafficLogEntry>();
  let offset = 0;
  let limit = pages.first;
  for (;;) {
    const page = await listTraffic(client, deviceId, { limit, offset, order: '-id', actions: filter.actions, search: filter.search });
    let reached = false;
    for (const entry of page.data) {
      if (entry.id <= cursor) {
        reached = true;
        break;
      }
      found.set(entry.id, entry);
    }
    if (reached || page.data.length < limit) return { entries: ascending(found), complete: true };
    if (found.size >= pages.max) return { entries: ascending(found), complete: false };
    offset += limit;
    limit = pages.next;
  }
}

function ascending(found: Map<number, WireTrafficLogEntry>): WireTrafficLogEntry[] {
  return [...found.values()].sort((a, b) => a.id - b.id);
}
