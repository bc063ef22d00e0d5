// How downloads share the gateway, as the operator sets it (config.ts reads the settings): the
// upstream connections they may hold in all and per key, how long a client may read nothing
// before its download is cut, and how many links one key may hold at once.
export interface ExportSettings {
  /** EXPORT_MAX_CONCURRENT: downloads at once in all; also the size of the downloads' own pool. */
  maxConcurrent: number;
  /** EXPORT_MAX_CONCURRENT_PER_KEY: downloads at once acting with one upstream key. */
  maxConcurrentPerKey: number;
  /** EXPORT_IDLE_TIMEOUT_S, in ms: a download whose client takes nothing for this long is cut. */
  idleTimeoutMs: number;
  /** EXPORT_LINKS_PER_KEY: links one key holds at once; past it, its own oldest go (expired first). */
  linksPerKey: number;
}

export const DEFAULT_EXPORT_SETTINGS: ExportSettings = {
  maxConcurrent: 8,
  maxConcurrentPerKey: 2,
  idleTimeoutMs: 30_000,
  linksPerKey: 100,
};
