// How the traffic tail runs: the settings an operator gives (config.ts reads them) and the bounds
// that are the gateway's own.
export interface TailSettings {
  /** TAIL_POLL_INTERVAL_MS: how often a poller reads the newest entries. */
  pollIntervalMs: number;
  /** TAIL_MAX_FAILURE_S, in ms: how long a poller's calls may keep failing before its subscriptions end. */
  maxFailureMs: number;
  /** TAIL_MAX_SUBSCRIPTIONS_PER_CONNECTION. */
  maxSubscriptionsPerConnection: number;
  /** TAIL_MAX_CONNECTIONS_PER_KEY: WebSocket connections one API key may hold at once. */
  maxConnectionsPerKey: number;
  /** TAIL_MAX_POLLERS_PER_KEY: distinct logs (device and filter) one key may follow at once. */
  maxPollersPerKey: number;
  /** How often each subscriber's own key is shown again to read the device. */
  recheckMs: number;
}

export const DEFAULT_TAIL_SETTINGS: TailSettings = {
  pollIntervalMs: 1000,
  maxFailureMs: 60_000,
  maxSubscriptionsPerConnection: 20,
  maxConnectionsPerKey: 50,
  maxPollersPerKey: 5,
  recheckMs: 60_000,
};

/** Entries replayed after `afterId` at most (the contract's number); more is TAIL_GAP. */
export const MAX_REPLAY = 1000;
/**
 * A poll's first page is sized from what the last poll found (twice as many, and at least this
 * many): most polls find a few entries, and every entry read is parsed and checked whether new or
 * not, so a page of 100 for 2 new entries was most of a poll's cost.
 */
export const MIN_FIRST_PAGE = 10;
/** Later pages of a burst, as large as v1 allows. */
export const CATCH_UP_PAGE = 1000;
/** Entries one poll reads at most; a burst larger than this in one interval is TAIL_GAP. */
export const MAX_CATCH_UP = 20_000;
/** Entries a slow client may still have waiting when the next poll's come; more, and it is cut. */
export const MAX_QUEUED = 1000;
/**
 * A poll waits at least this many times as long as the last one took: a log whose reading is
 * expensive (a search the upstream answers slowly) is polled less often, so one poller keeps the
 * upstream busy for at most a fifth of its time, whatever TAIL_POLL_INTERVAL_MS says.
 */
export const POLL_COST_STRETCH = 4;
/** The longest wait between two polls of a failing upstream. */
export const MAX_BACKOFF_MS = 10_000;

/** The settings from the environment, through config.ts's reader of an integer setting (its bounds, its errors). */
export function tailSettings(integer: (name: string, fallback: number, min: number, max: number) => number): TailSettings {
  const defaults = DEFAULT_TAIL_SETTINGS;
  return {
    ...defaults,
    pollIntervalMs: integer('TAIL_POLL_INTERVAL_MS', defaults.pollIntervalMs, 50, 3_600_000),
    maxFailureMs: integer('TAIL_MAX_FAILURE_S', defaults.maxFailureMs / 1000, 1, 86_400) * 1000,
    maxSubscriptionsPerConnection: integer('TAIL_MAX_SUBSCRIPTIONS_PER_CONNECTION', defaults.maxSubscriptionsPerConnection, 1, 10_000),
    maxConnectionsPerKey: integer('TAIL_MAX_CONNECTIONS_PER_KEY', defaults.maxConnectionsPerKey, 1, 100_000),
    maxPollersPerKey: integer('TAIL_MAX_POLLERS_PER_KEY', defaults.maxPollersPerKey, 1, 10_000),
  };
}
