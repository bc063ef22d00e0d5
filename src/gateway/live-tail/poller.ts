// One poller per log (a device's, under one filter): it reads the newest entries every interval
// with the key of a subscriber that currently may read the log, and hands each subscriber the
// entries newer than what it already has. However many subscribe, the upstream sees one reader.
// A poll is paid for from the bucket of the key it reads with (throttling): while no subscriber's
// key has calls left, the poller waits; and the next poll waits longer the longer the last took.
import type { GraphQLError } from 'graphql';
import { ErrorCode, GatewayError, isCancelled } from '../errors.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { tailGap } from './errors.ts';
import type { EntryFeed } from './feed.ts';
import { readNewest } from './read-newest.ts';
import type { Charge } from '../throttling/plugin.ts';
import { CATCH_UP_PAGE, MAX_BACKOFF_MS, MAX_CATCH_UP, MIN_FIRST_PAGE, POLL_COST_STRETCH, type TailSettings } from './settings.ts';
import type { TailCoordinator, TailMessage } from './coordination.ts';
import type { TailEntry, TailSource } from './source.ts';

export interface Subscriber<E extends TailEntry = TailEntry> {
  readonly feed: EntryFeed<E>;
  readonly apiKey: string;
  /** When a call with this subscriber's own key last showed it may read the log. */
  checkedAt: number;
  /** A recheck of its key is under way. */
  checking?: boolean;
}

export interface PollerDeps {
  settings: TailSettings;
  /** An upstream client acting with this key, cancelled by the signal. */
  client(apiKey: string, signal: AbortSignal): UpstreamClient;
  onPoll(outcome: string, delivered: number): void;
  /** The last subscriber left: the poller has stopped. */
  onIdle(): void;
  /** Whether this replica polls, and how it hears the replica that does. */
  coordinator: TailCoordinator;
  /** Takes upstream calls from a key's bucket; absent when throttling is off. */
  charge?(apiKey: string, calls: number): Promise<Charge>;
}

/** Errors that say the key may not read the log: its subscribers stop, the others go on. */
const ACCESS_LOST = new Set<string>([ErrorCode.UNAUTHENTICATED, ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND]);

function accessLost(error: unknown): error is GatewayError {
  return error instanceof GatewayError && ACCESS_LOST.has(error.code);
}

export class TailPoller<E extends TailEntry> {
  readonly #subscribers = new Set<Subscriber<E>>();
  readonly #abort = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #failingSince: number | undefined;
  #failures = 0;
  #stopped = false;
  #firstPage = MIN_FIRST_PAGE;
  /** How long the last poll's reading took. */
  #lastCostMs = 0;
  /** While another replica polls: how to stop hearing it. */
  #following: (() => void) | undefined;

  constructor(
    readonly source: TailSource<E>,
    private readonly deps: PollerDeps,
  ) {}

  get size(): number {
    return this.#subscribers.size;
  }

  add(subscriber: Subscriber<E>): void {
    this.#subscribers.add(subscriber);
    // The newcomer's entries since its own check are read on the next poll, with everyone's.
    if (this.#timer === undefined && !this.#stopped) this.#schedule(this.deps.settings.pollIntervalMs);
  }

  remove(subscriber: Subscriber<E>): void {
    if (!this.#subscribers.delete(subscriber) || this.#subscribers.size > 0) return;
    this.stop();
    this.deps.onIdle();
  }

  /** Stops polling; subscribers still here are finished (their clients get `complete`). */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#abort.abort();
    this.#following?.();
    void this.deps.coordinator.release(this.source.key);
    for (const subscriber of [...this.#subscribers]) subscriber.feed.finish();
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => void this.#poll(), delayMs);
  }

  async #poll(): Promise<void> {
    const now = performance.now();
    const { recheckMs } = this.deps.settings;
    // Only subscribers whose key was shown to pass within the recheck period get entries; the
    // others keep their cursor and get them once their check passes again.
    const current = this.#current(now);
    void this.#recheck(now);
    if (current.length === 0) return this.#after(true);
    // With replicas, one polls (the lease's holder); the others hear what it reads.
    const leading = await this.deps.coordinator.lead(this.source.key);
    if (this.#stopped) return;
    if (!leading) {
      this.#following ??= this.deps.coordinator.follow<E>(this.source.key, (message) => void this.#heard(message));
      return this.#after(true);
    }
    this.#following?.();
    this.#following = undefined;
    const payer = await this.#payer(current);
    if (this.#stopped) return;
    if (!payer.ok) {
      // Every key that could read has an empty bucket: the log waits until one is refilled.
      this.deps.onPoll(ErrorCode.RATE_LIMITED, 0);
      return this.#after(true, payer.retryAfterS * 1000);
    }
    const poller = payer.subscriber;
    const cursor = Math.min(...current.map((s) => s.feed.cursor));
    const startedAt = performance.now();
    let calls = 0;
    try {
      const read = await this.#read(poller.apiKey, cursor, () => (calls += 1));
      this.#lastCostMs = performance.now() - startedAt;
      void payer.settle(calls).catch(() => {});
      this.#firstPage = Math.min(CATCH_UP_PAGE, Math.max(MIN_FIRST_PAGE, read.entries.length * 2));
      this.deps.coordinator.publish(this.source.key, { entries: read.entries, complete: read.complete, after: cursor });
      const delivered = this.#deliver(current, read.entries, read.complete);
      this.#failingSince = undefined;
      this.#failures = 0;
      this.deps.onPoll('ok', delivered);
      this.#after(true);
    } catch (error) {
      this.#lastCostMs = performance.now() - startedAt;
      void payer.settle(calls).catch(() => {});
      if (this.#stopped || isCancelled(error)) return;
      const code = error instanceof GatewayError ? error.code : ErrorCode.INTERNAL_SERVER_ERROR;
      this.deps.onPoll(code, 0);
      if (accessLost(error)) {
        // This key lost access: its subscribers stop; the next poll uses another's key at once.
        this.#endKey(poller.apiKey, error);
        return this.#after(true, 0);
      }
      this.#failingSince ??= now;
      this.#failures += 1;
      if (now - this.#failingSince >= this.deps.settings.maxFailureMs) {
        const reason = error instanceof GatewayError ? error : new GatewayError('The traffic log could not be read', { code: ErrorCode.UPSTREAM_UNAVAILABLE });
        this.deps.coordinator.publish(this.source.key, { failed: { code: String(reason.extensions.code), message: reason.message } });
        for (const subscriber of [...this.#subscribers]) subscriber.feed.fail(reason);
        return;
      }
      this.#after(false);
    }
  }

  /** The subscribers whose key was shown to pass within the recheck period (with a poll or two of slack). */
  #current(now: number): Subscriber<E>[] {
    const slack = this.deps.settings.recheckMs + this.#interval() * 2;
    return [...this.#subscribers].filter((s) => !s.feed.ended && now - s.checkedAt <= slack);
  }

  /** The wait between two polls: the interval, or longer when the last poll was expensive. */
  #interval(): number {
    return Math.max(this.deps.settings.pollIntervalMs, this.#lastCostMs * POLL_COST_STRETCH);
  }

  #read(apiKey: string, cursor: number, onPage?: () => void) {
    const source: TailSource<E> = onPage
      ? {
          ...this.source,
          newest: (client, page) => {
            onPage();
            return this.source.newest(client, page);
          },
        }
      : this.source;
    return this.#withClient(apiKey, (client) => readNewest(client, source, cursor, { first: this.#firstPage, next: CATCH_UP_PAGE, max: MAX_CATCH_UP }));
  }

  /**
   * The subscriber whose key pays for this poll (one call, settled to the pages read): the most
   * recently checked one whose bucket has a call left; or, when none has, when to try again.
   */
  async #payer(current: Subscriber<E>[]): Promise<{ ok: true; subscriber: Subscriber<E>; settle(spent: number): Promise<unknown> } | { ok: false; retryAfterS: number }> {
    const byRecency = [...current].sort((a, b) => b.checkedAt - a.checkedAt);
    if (!this.deps.charge) return { ok: true, subscriber: byRecency[0]!, settle: async () => {} };
    let retryAfterS = Number.POSITIVE_INFINITY;
    const tried = new Set<string>();
    for (const subscriber of byRecency) {
      if (tried.has(subscriber.apiKey)) continue;
      tried.add(subscriber.apiKey);
      const charge = await this.deps.charge(subscriber.apiKey, 1);
      if (charge.ok) return { ok: true, subscriber, settle: charge.settle };
      retryAfterS = Math.min(retryAfterS, charge.retryAfterS);
    }
    return { ok: false, retryAfterS: Number.isFinite(retryAfterS) ? retryAfterS : 1 };
  }

  /** Hands each subscriber the entries newer than its cursor; returns how many were delivered. */
  #deliver(subscribers: Subscriber<E>[], entries: readonly E[], complete: boolean): number {
    const oldest = entries[0]?.id ?? Infinity;
    let delivered = 0;
    for (const subscriber of subscribers) {
      // A burst larger than a poll reads: whoever was behind the oldest entry read missed some.
      if (!complete && subscriber.feed.cursor < oldest - 1) {
        subscriber.feed.fail(tailGap(`More than ${MAX_CATCH_UP} entries arrived within one poll; read them with trafficLog and subscribe again with afterId.`));
      } else {
        delivered += subscriber.feed.push(entries);
      }
    }
    return delivered;
  }

  /**
   * What the leading replica read. Subscribers here that are behind what it read from (one that
   * joined while a message was on its way, one whose check lapsed) first read what they missed,
   * with their own key, so that none skips an entry.
   */
  async #heard(message: TailMessage<E>): Promise<void> {
    if (this.#stopped) return;
    if ('failed' in message) {
      const reason = new GatewayError(message.failed.message, { code: message.failed.code as ErrorCode });
      for (const subscriber of [...this.#subscribers]) subscriber.feed.fail(reason);
      return;
    }
    const current = this.#current(performance.now());
    const behind = current.filter((s) => s.feed.cursor < message.after);
    if (behind.length > 0) {
      const reader = behind.reduce((a, b) => (b.checkedAt > a.checkedAt ? b : a));
      try {
        const read = await this.#read(reader.apiKey, Math.min(...behind.map((s) => s.feed.cursor)));
        this.#deliver(behind, read.entries, read.complete);
      } catch (error) {
        if (accessLost(error)) this.#endKey(reader.apiKey, error);
        // Otherwise they stay behind, and the next message tries again.
      }
    }
    this.deps.onPoll('followed', this.#deliver(current, message.entries, message.complete));
  }

  /** The next poll: after the interval, or after a growing backoff while the upstream fails. */
  #after(ok: boolean, delayMs?: number): void {
    if (this.#stopped || this.#subscribers.size === 0) return;
    // An expensive log is polled less often: the wait grows with what the last poll cost.
    const interval = this.#interval();
    const backoff = Math.min(MAX_BACKOFF_MS, interval * 2 ** Math.min(this.#failures, 10));
    this.#schedule(delayMs ?? (ok ? interval : Math.max(interval, backoff)));
  }

  /**
   * A client for one poll or check, cancelled when the poller stops. Its signal is the poll's own:
   * a client listens on its signal until that fires, and the poller's lives as long as it does.
   */
  async #withClient<T>(apiKey: string, use: (client: UpstreamClient) => Promise<T>): Promise<T> {
    const poll = new AbortController();
    const cancel = () => poll.abort();
    this.#abort.signal.addEventListener('abort', cancel, { once: true });
    try {
      return await use(this.deps.client(apiKey, poll.signal));
    } finally {
      this.#abort.signal.removeEventListener('abort', cancel);
    }
  }

  #endKey(apiKey: string, error: GraphQLError): void {
    for (const subscriber of [...this.#subscribers]) if (subscriber.apiKey === apiKey) subscriber.feed.fail(error);
  }

  /** Each subscriber's own key is shown again once its check is older than the recheck period. */
  async #recheck(now: number): Promise<void> {
    const due = [...this.#subscribers].filter((s) => !s.feed.ended && !s.checking && now - s.checkedAt >= this.deps.settings.recheckMs);
    // One call per key, whatever the number of its subscribers here: a dashboard's many tabs (or
    // a thousand subscribers admitted together) do not become a burst of identical checks.
    const byKey = new Map<string, Subscriber<E>[]>();
    for (const subscriber of due) {
      const same = byKey.get(subscriber.apiKey);
      if (same) same.push(subscriber);
      else byKey.set(subscriber.apiKey, [subscriber]);
    }
    await Promise.all(
      [...byKey].map(async ([apiKey, subscribers]) => {
        for (const subscriber of subscribers) subscriber.checking = true;
        try {
          await this.#withClient(apiKey, (client) => this.source.newest(client, { limit: 1 }));
          // What the check showed holds for every subscriber of this key here, due or not yet.
          const checkedAt = performance.now();
          for (const subscriber of this.#subscribers) if (subscriber.apiKey === apiKey) subscriber.checkedAt = checkedAt;
        } catch (error) {
          // Only a refusal ends them; an upstream that fails says nothing of the key.
          if (accessLost(error)) this.#endKey(apiKey, error);
        } finally {
          for (const subscriber of subscribers) subscriber.checking = false;
        }
      }),
    );
  }
}
