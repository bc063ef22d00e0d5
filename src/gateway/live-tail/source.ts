// What a tail follows: a log whose entries have increasing ids, read newest first. The domain that
// owns the log says how a page of it is read (its v1 call, with the subscriber's key) and names the
// log, so that one poller serves every subscriber of the same log, here and across replicas.
// Every read of a tail (admission, a start at an instant, a resumption, a poll, a recheck) is made
// with the client the tail gives, which asks the upstream itself: a tail never starts or goes on
// from a cached read, since where it starts and what it delivers is what the log holds now.
import type { UpstreamClient } from '../upstream/client.ts';

/** An entry of a followed log: its id grows with each entry logged. */
export interface TailEntry {
  readonly id: number;
}

export interface TailSource<E extends TailEntry> {
  /** The log's name among this gateway's pollers and, hashed, in Redis: equal logs, equal keys. */
  readonly key: string;
  /**
   * A page of the log's matching entries, newest first, read with the client's key. Without an
   * offset, the newest `limit`: what an admission or a recheck of a key reads.
   */
  newest(client: UpstreamClient, page: { limit: number; offset?: number }): Promise<readonly E[]>;
  /** The id of the newest entry of the whole log, whatever the filter (0 when it is empty). */
  newestOfAll(client: UpstreamClient): Promise<number>;
  /**
   * Where a subscription that starts at an instant (milliseconds) begins: the id just before the
   * first matching entry dated at or after it, or undefined when there is none yet. Absent when
   * the log's entries carry no time.
   */
  startAt?(client: UpstreamClient, instant: number): Promise<number | undefined>;
  /** The upstream calls `startAt` is expected to make: charged before it runs, settled to those it made. */
  readonly startAtCalls?: number;
}
