// Reading a log back from its newest entry: what a poll and a resumed subscription both need. v1
// has no "after id" filter, so the log is read newest first until an entry at or below the cursor
// shows up. Entries logged while the pages are read push older ones further down, so a later page
// may repeat an entry (dropped here) but never skips one. A page that brings nothing new (the log
// grew by at least a page while it was read) is followed by a larger one: a reading in small pages
// (a resumption's one-entry check) would otherwise chase a busy log for as long as it keeps growing.
import type { UpstreamClient } from '../upstream/client.ts';
import { CATCH_UP_PAGE } from './settings.ts';
import type { TailEntry, TailSource } from './source.ts';

export interface NewestEntries<E extends TailEntry> {
  /** The entries newer than the cursor that were read, in ascending id order. */
  entries: E[];
  /** False when the reading stopped at `max` before reaching the cursor: older ones were missed. */
  complete: boolean;
}

export async function readNewest<E extends TailEntry>(
  client: UpstreamClient,
  source: TailSource<E>,
  cursor: number,
  pages: { first: number; next: number; max: number },
): Promise<NewestEntries<E>> {
  const found = new Map<number, E>();
  let offset = 0;
  let limit = pages.first;
  /** The size of the pages after the first: grown each time one brings nothing new. */
  let next = pages.next;
  for (;;) {
    const page = await source.newest(client, { limit, offset });
    const before = found.size;
    let reached = false;
    for (const entry of page) {
      if (entry.id <= cursor) {
        reached = true;
        break;
      }
      found.set(entry.id, entry);
    }
    if (reached || page.length < limit) return { entries: ascending(found), complete: true };
    if (found.size >= pages.max) return { entries: ascending(found), complete: false };
    offset += limit;
    if (found.size === before) next = Math.min(next * 2, Math.max(CATCH_UP_PAGE, pages.next));
    limit = next;
  }
}

function ascending<E extends TailEntry>(found: Map<number, E>): E[] {
  return [...found.values()].sort((a, b) => a.id - b.id);
}
