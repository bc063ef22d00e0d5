// One subscription's entries on their way to its client. The poller pushes; graphql-ws pulls one
// event at a time and waits for the socket to take it, so a client that reads slowly leaves
// entries here. They are bounded: a poll's new entries are taken whole into a queue below
// `maxQueued` (a poll reads at most MAX_CATCH_UP, and its entries are the poller's, shared by every
// subscriber's queue). A queue at or above the bound (a burst its client is still reading) may not
// grow: a client that read fewer entries since the last poll than this poll brings is falling
// further behind, and is cut with TAIL_GAP (it resumes with `afterId`) instead of the gateway
// buffering for it without end. One that reads at least as fast as entries come is left to catch
// up however long the burst takes it, and a poll that brings nothing new cuts no one.
import type { GraphQLError } from 'graphql';
import { tailGap } from './errors.ts';
import type { TailEntry } from './source.ts';

/** What the subscription's source yields: an entry, or the error that ends it. */
export type TailEvent<E extends TailEntry = TailEntry> = { entry: E } | { error: GraphQLError };

export class EntryFeed<E extends TailEntry = TailEntry> implements AsyncIterableIterator<TailEvent<E>> {
  /** The id of the newest entry queued: only newer ones are taken, so none is sent twice. */
  #cursor: number;
  #queue: TailEvent<E>[] = [];
  /** The queue's length after the last entries were taken: above `maxQueued`, it may not grow past it. */
  #ceiling = 0;
  #waiting: ((result: IteratorResult<TailEvent<E>>) => void) | undefined;
  #ending = false;
  #done = false;

  constructor(
    cursor: number,
    private readonly maxQueued: number,
    /** Called once when the feed ends, whoever ends it (the client, an error, the gateway). */
    private readonly onEnd: () => void,
  ) {
    this.#cursor = cursor;
  }

  get cursor(): number {
    return this.#cursor;
  }

  get ended(): boolean {
    return this.#ending || this.#done;
  }

  /** Entries in ascending id order; those not newer than the cursor are skipped. Returns how many were taken. */
  push(entries: readonly E[]): number {
    if (this.ended) return 0;
    const fresh = entries.filter((entry) => entry.id > this.#cursor);
    if (fresh.length === 0) return 0;
    const queued = this.#queue.length;
    if (queued >= this.maxQueued && queued + fresh.length > Math.max(this.#ceiling, this.maxQueued)) {
      this.fail(tailGap(`This subscription fell more than ${this.maxQueued} entries behind its client; subscribe again with afterId set to the id of the last entry received.`));
      return 0;
    }
    for (const entry of fresh) {
      this.#cursor = entry.id;
      this.#deliver({ entry });
    }
    this.#ceiling = this.#queue.length;
    return fresh.length;
  }

  /** Ends the feed with an error, delivered after the entries already queued. */
  fail(error: GraphQLError): void {
    if (this.ended) return;
    this.#deliver({ error });
    this.#ending = true;
    this.onEnd();
  }

  /** Ends the feed cleanly once its queued entries are taken (the client gets `complete`). */
  finish(): void {
    if (this.ended) return;
    this.#ending = true;
    this.onEnd();
    if (this.#queue.length === 0) this.#close();
  }

  next(): Promise<IteratorResult<TailEvent<E>>> {
    const event = this.#queue.shift();
    if (event !== undefined) {
      if ('error' in event) this.#close();
      return Promise.resolve({ value: event, done: false });
    }
    if (this.#ending || this.#done) {
      this.#close();
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  /** The client completed the subscription, or its connection closed. */
  return(): Promise<IteratorResult<TailEvent<E>>> {
    if (!this.#ending) {
      this.#ending = true;
      this.onEnd();
    }
    this.#close();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  #deliver(event: TailEvent<E>): void {
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = undefined;
      if ('error' in event) this.#done = true;
      waiting({ value: event, done: false });
    } else {
      this.#queue.push(event);
    }
  }

  #close(): void {
    this.#done = true;
    this.#queue = [];
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }
}
