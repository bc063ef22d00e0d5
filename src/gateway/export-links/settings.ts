// How downloads share the gateway, as the operator sets it (config.ts reads the settings): the
// upstream connections they may hold in all and per key, how long a client may read nothing
// before its download is cut, and how many links one key may hold at once.
/** EXPORT_MAX_CONCURRENT, EXPORT_MAX_CONCURRENT_PER_KEY, EXPORT_IDLE_TIMEOUT_S, EXPORT_LINKS_PER_KEY. */
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

/** The settings from the environment, through config.ts's reader of an integer setting (its bounds, its errors). */
export function exportSettings(integer: (name: string, fallback: number, min: number, max: number) => number): ExportSettings {
  const defaults = DEFAULT_EXPORT_SETTINGS;
  return {
    maxConcurrent: integer('EXPORT_MAX_CONCURRENT', defaults.maxConcurrent, 1, 10_000),
    maxConcurrentPerKey: integer('EXPORT_MAX_CONCURRENT_PER_KEY', defaults.maxConcurrentPerKey, 1, 10_000),
    idleTimeoutMs: integer('EXPORT_IDLE_TIMEOUT_S', defaults.idleTimeoutMs / 1000, 1, 86_400) * 1000,
    linksPerKey: integer('EXPORT_LINKS_PER_KEY', defaults.linksPerKey, 1, 1_000_000),
  };
}
