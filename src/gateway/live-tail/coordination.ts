// Which replica polls a log (a device's, under one filter), and how the others get its entries.
// Alone (no Redis), every poller leads. With replicas, one replica at a time holds a poller's lease
// and polls; it publishes what each poll read, and the replicas that follow hand it to their own
// subscribers. Each subscriber keeps its own cursor, so an entry heard twice (or read again after
// a takeover) is still delivered once.
import type { TailEntry } from './source.ts';

/** What a leading poller publishes after each poll. */
export type TailMessage<E extends TailEntry = TailEntry> =
  /**
   * The entries a poll read after `after` (maybe none), oldest first; `complete` false when a
   * burst was larger than one poll reads. A follower's subscriber behind `after` reads what it
   * missed itself before it takes these.
   */
  | { entries: E[]; complete: boolean; after: number }
  /** The leader's calls kept failing past TAIL_MAX_FAILURE_S: every subscription ends so. */
  | { failed: { code: string; message: string } };

export interface TailCoordinator {
  /** Whether this replica polls `key` now: it holds the lease or just took it (always, alone). */
  lead(key: string): Promise<boolean>;
  /** This replica stops polling `key`: another may take it at once. */
  release(key: string): Promise<void>;
  publish<E extends TailEntry>(key: string, message: TailMessage<E>): void;
  /**
   * Hears what the leader of `key` publishes; returns how to stop hearing it. A key names one
   * source, so what is heard under it holds that source's entries.
   */
  follow<E extends TailEntry>(key: string, onMessage: (message: TailMessage<E>) => void): () => void;
}

/** One replica alone: it polls everything it has subscribers for. */
export const ALONE: TailCoordinator = {
  lead: async () => true,
  release: async () => {},
  publish: () => {},
  follow: () => () => {},
};
