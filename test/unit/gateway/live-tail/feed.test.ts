// One subscription's queue between the poller and its client: which clients it cuts with TAIL_GAP.
// The feed is driven as the poller drives it (a push per poll of the entries the poll read) and
// read as graphql-ws reads it (one `next` at a time), so the order of pushes and reads is the test's.
import { describe, expect, it } from 'vitest';
import { EntryFeed, type TailEvent } from '../../../../src/gateway/live-tail/feed.ts';

const MAX = 1000;

function entries(from: number, count: number): { id: number }[] {
  return Array.from({ length: count }, (_, i) => ({ id: from + i }));
}

/** Reads `count` events, as the socket takes them. */
async function read(feed: EntryFeed, count: number): Promise<TailEvent[]> {
  const events: TailEvent[] = [];
  for (let i = 0; i < count; i++) {
    const result = await feed.next();
    if (result.done) break;
    events.push(result.value);
  }
  return events;
}

function gapOf(events: TailEvent[]): string[] {
  return events.flatMap((event) => ('error' in event ? [String(event.error.extensions.code)] : []));
}

describe('EntryFeed', () => {
  it('lets a client read a burst larger than its bound while it reads at least as fast as entries come', async () => {
    const feed = new EntryFeed(0, MAX, () => {});
    expect(feed.push(entries(1, 2500))).toBe(2500);
    let next = 2501;
    let received: number[] = [];
    // Each poll brings one new entry (the log's usual pace), and the client read a few meanwhile.
    while (received.length < 2500 + 200) {
      const events = await read(feed, 5);
      expect(gapOf(events)).toEqual([]);
      received = received.concat(events.map((event) => ('entry' in event ? event.entry.id : -1)));
      feed.push(entries(next, 1));
      next += 1;
      // A poll that found nothing new cuts no one.
      feed.push([]);
      feed.push(entries(next - 1, 1));
    }
    expect(feed.ended).toBe(false);
    expect(received).toEqual(entries(1, received.length).map((entry) => entry.id));
  });

  it('cuts no client on a poll that brings nothing new, however full its queue', async () => {
    const feed = new EntryFeed(0, MAX, () => {});
    feed.push(entries(1, 1500));
    expect(feed.push([])).toBe(0);
    expect(feed.push(entries(1, 1500))).toBe(0);
    expect(feed.ended).toBe(false);
    expect((await read(feed, 1500)).every((event) => 'entry' in event)).toBe(true);
  });

  it('cuts with TAIL_GAP, after what it queued, a client over the bound that reads fewer entries than come', async () => {
    let ends = 0;
    const feed = new EntryFeed(0, MAX, () => (ends += 1));
    feed.push(entries(1, 2500));
    await read(feed, 3);
    // Three read, four more come: the backlog above the bound would grow.
    expect(feed.push(entries(2501, 4))).toBe(0);
    expect(feed.ended).toBe(true);
    expect(ends).toBe(1);
    const rest = await read(feed, 3000);
    expect(rest).toHaveLength(2498);
    expect(gapOf(rest)).toEqual(['TAIL_GAP']);
    expect('error' in rest.at(-1)!).toBe(true);
    expect(await feed.next()).toEqual({ value: undefined, done: true });
  });

  it('cuts a client that stays at its bound while entries keep coming faster than it reads', async () => {
    const feed = new EntryFeed(0, MAX, () => {});
    let next = 1;
    let polls = 0;
    // Ten entries a poll, one read a poll: the queue passes its bound and may not grow beyond.
    while (!feed.ended && polls < 500) {
      feed.push(entries(next, 10));
      next += 10;
      await read(feed, 1);
      polls += 1;
    }
    expect(feed.ended).toBe(true);
    expect(polls).toBeLessThanOrEqual(Math.ceil(MAX / 9) + 2);
  });

  it('takes a poll whole into a queue below its bound', () => {
    const feed = new EntryFeed(0, MAX, () => {});
    feed.push(entries(1, 999));
    expect(feed.push(entries(1000, 5000))).toBe(5000);
    expect(feed.ended).toBe(false);
  });
});
