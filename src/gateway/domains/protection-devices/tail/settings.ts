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
  /** How often each subscriber's own key is shown again to read the device. */
  recheckMs: number;
}

export const DEFAULT_TAIL_SETTINGS: TailSettings = {
  pollIntervalMs: 1000,
  maxFailureMs: 60_000,
  maxSubscriptionsPerConnection: 20,
  maxConnectionsPerKey: 50,
  recheckMs: 60_000,
};

/** Entries replayed after `afterId` at most (the contract's number); more is TAIL_GAP. */
export const MAX_REPLAY = 1000;
/** A poll's first page: most polls find a few entries, so a small page answers fastest. */
export const FIRST_PAGE = 100;
/** Later pages of a burst, as large as v1 allows. */
export const CATCH_UP_PAGE = 1000;
/** Entries one poll reads at most; a burst larger than this in one interval is TAIL_GAP. */
export const MAX_CATCH_UP = 20_000;
/** Entries waiting for one slow client at most before its subscription is cut. */
export const MAX_QUEUED = 2000;
/** The longest wait between two polls of a failing upstream. */
export const MAX_BACKOFF_MS = 10_000;
