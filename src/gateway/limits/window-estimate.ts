// What a time window over the traffic log adds to an operation's estimates: the search of its
// bounds (domains/protection-devices/window-search.ts), counted before it runs. The figure is what
// both bounds of a window cost among a million entries of one device, whose timestamps are spread
// evenly or in bursts; a log whose timestamps are spread very unevenly can cost a few more, which
// the operation's budget of upstream calls (MAX_UPSTREAM_CALLS) still bounds.
export const WINDOW_SEARCH_CALLS = 24;

/** The window search's calls for a field with these arguments: none without `filter.from` or `filter.to`. */
export function windowSearchCalls(args: Record<string, unknown>): number {
  const filter = args['filter'];
  if (typeof filter !== 'object' || filter === null) return 0;
  const { from, to } = filter as { from?: unknown; to?: unknown };
  return from != null || to != null ? WINDOW_SEARCH_CALLS : 0;
}

/** Variable types whose values can open a window: a filter, or an instant given on its own. */
export const WINDOW_VARIABLE_TYPES: ReadonlySet<string> = new Set(['TrafficLogFilter', 'DateTime']);

/** What a value of such a variable changes in an estimate: only whether it holds an instant. */
export function windowVariableKey(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'object' && !(value instanceof Date)) {
    const { from, to } = value as { from?: unknown; to?: unknown };
    return from != null || to != null ? 'w' : '-';
  }
  return 'w';
}
