// Reading a log back from its newest entry while entries keep being logged: each page is read from
// a log that has grown since the last, as v1's is under its traffic.
import { describe, expect, it } from 'vitest';
import { readNewest } from '../../../../src/gateway/live-tail/read-newest.ts';
import type { TailSource } from '../../../../src/gateway/live-tail/source.ts';
import type { UpstreamClient } from '../../../../src/gateway/upstream/client.ts';

/** A log of ids 1..size that grows by `growth` entries before each page is read; counts its reads. */
function growingLog(size: number, growth: number) {
  const log = { newestId: size, reads: 0 };
  const source: TailSource<{ id: number }> = {
    key: 'test',
    async newest(_client, { limit, offset = 0 }) {
      log.reads += 1;
      if (log.reads > 500) throw new Error('still reading after 500 pages');
      log.newestId += growth;
      const ids: { id: number }[] = [];
      for (let id = log.newestId - offset; id > log.newestId - offset - limit && id > 0; id--) ids.push({ id });
      return ids;
    },
    async newestOfAll() {
      return log.newestId;
    },
  };
  return { log, source };
}

const client = {} as UpstreamClient;

describe('readNewest', () => {
  it('overtakes a log that grows by more than a page between two reads, and says when more than max came after the cursor', async () => {
    // A resumption's check: 1,000 entries, then pages of one, while ten are logged per read.
    const { log, source } = growingLog(1500, 10);
    const read = await readNewest(client, source, 1, { first: 1000, next: 1, max: 1001 });
    expect(read.complete).toBe(false);
    expect(read.entries.length).toBeGreaterThanOrEqual(1001);
    expect(log.reads).toBeLessThan(10);
  });

  it('reads back to the cursor without a gap or a repeat while the log grows', async () => {
    const { source } = growingLog(1500, 10);
    const read = await readNewest(client, source, 400, { first: 100, next: 1, max: 5000 });
    expect(read.complete).toBe(true);
    const ids = read.entries.map((entry) => entry.id);
    expect(ids[0]).toBe(401);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => 401 + i));
  });

  it('reads as before a log that does not grow: one page, then pages of `next`', async () => {
    const { log, source } = growingLog(1500, 0);
    const read = await readNewest(client, source, 1, { first: 1000, next: 1, max: 1001 });
    expect(read.complete).toBe(false);
    expect(read.entries.map((entry) => entry.id)).toEqual(Array.from({ length: 1001 }, (_, i) => 500 + i));
    expect(log.reads).toBe(2);
  });
});
