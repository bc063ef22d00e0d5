// What the device and traffic lists share of their arguments: v1's order parameter, and filter
// value lists made sets.
import type { OrderDirection, TrafficLogFilter } from '../../generated/resolvers.ts';

/** v1's `order`: the field, with `-` in front for descending. */
export function wireOrder<F extends string>(fields: Record<F, string>, order: { field: F; direction?: OrderDirection | null }, fallbackDirection: OrderDirection): string {
  return ((order.direction ?? fallbackDirection) === 'DESC' ? '-' : '') + fields[order.field];
}

/** Lists of filter values are sets: sorted and de-duplicated, so equal filters bind equal cursors. */
export function normalisedSet(values: readonly string[] | null | undefined): string[] | undefined {
  if (!values || values.length === 0) return undefined;
  return [...new Set(values)].sort();
}

/** A traffic filter as v1 takes it, normalised: equal filters read (and cursor, and poll) alike. */
export function trafficFilter(filter: TrafficLogFilter | null | undefined): { actions?: string[]; search?: string } {
  const actions = normalisedSet(filter?.actions);
  const search = filter?.search?.trim().replace(/\s+/g, ' ') || undefined;
  return { ...(actions ? { actions } : {}), ...(search ? { search } : {}) };
}
