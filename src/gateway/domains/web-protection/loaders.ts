// The per-request loaders of web protection records: every read of one operation goes through
// them, and so do the mutations' payloads, so that a record an edit returned, or a page listed,
// is not read again in the same operation. Created per request (never shared across keys).
import DataLoader from 'dataloader';
import type { UpstreamClient } from '../../upstream/client.ts';
import type { WireList } from '../../upstream/envelope.ts';
import { settleEach } from '../common/settle.ts';
import { getWebProtectionRecord, listWebProtectionRecords } from './operations.ts';
import type { WireWebProtectionRecord } from './wire.ts';

export interface WebProtectionPageKey {
  limit: number;
  offset: number;
}

export interface WebProtectionLoaders {
  /** Pages of the records the key sees, one call per distinct page. */
  webProtectionPages: {
    load(key: WebProtectionPageKey): Promise<WireList<WireWebProtectionRecord>>;
    clearAll(): void;
  };
  /** Records by id (E2), primed by the pages and by the mutations' answers. */
  webProtectionRecordById: DataLoader<string, WireWebProtectionRecord>;
}

export function createWebProtectionLoaders(client: UpstreamClient): WebProtectionLoaders {
  // Records seen in the list pages of this operation, and the pages still on their way: a read by
  // id waits for those pages first, so a page and reads of its records asked together cost the page.
  const seen = new Map<string, WireWebProtectionRecord>();
  const pendingPages = new Set<Promise<unknown>>();
  const webProtectionRecordById = new DataLoader<string, WireWebProtectionRecord>(async (ids) => {
    // Let the sibling fields of this tick ask for their pages, then wait for every page.
    await new Promise((resolve) => setImmediate(resolve));
    while (pendingPages.size > 0) await Promise.all(pendingPages);
    return settleEach(ids, async (id) => seen.get(id) ?? getWebProtectionRecord(client, id));
  });
  const pageLoader = new DataLoader<WebProtectionPageKey, WireList<WireWebProtectionRecord>, string>(
    (keys) =>
      settleEach(keys, async ({ limit, offset }) => {
        const page = await listWebProtectionRecords(client, limit, offset);
        for (const record of page.data) seen.set(String(record.id), record);
        return page;
      }),
    { cacheKeyFn: ({ limit, offset }) => `${limit}:${offset}` },
  );
  const webProtectionPages = {
    load(key: WebProtectionPageKey) {
      const page = pageLoader.load(key);
      const settled: Promise<unknown> = page.then(
        () => pendingPages.delete(settled),
        () => pendingPages.delete(settled),
      );
      pendingPages.add(settled);
      return page;
    },
    /** After a mutation: the pages read before it are no longer what the list holds. */
    clearAll() {
      pageLoader.clearAll();
      seen.clear();
    },
  };
  return { webProtectionPages, webProtectionRecordById };
}
