// A time window over a device's traffic log (TrafficLogFilter `from`/`to`): its bounds, found
// once per operation by the search of window-search.ts over the log in ascending `date_time`
// (with the same search and actions), and its pages, read at ordinary offsets inside them. The
// window is read in ascending order whatever the direction asked: a descending page is the
// ascending page that ends where it starts, reversed. Entries are appended at the log's end, so
// the ascending offsets of a window in the past stay put while it is paged.
import type { OrderDirection, TrafficLogFilter, TrafficLogOrder } from '../../generated/resolvers.ts';
import { badUserInput } from '../../errors.ts';
import { findInstants, TimeOrderedLog, type TimeProbe } from './window-search.ts';
import type { WireTrafficLogEntry } from './wire.ts';
import type { WireList } from '../../upstream/envelope.ts';
import type { UpstreamClient } from '../../upstream/client.ts';
import { listTraffic } from './operations.ts';

/** The ascending order the window is searched and read in. */
export const ASCENDING = 'date_time';

/** A window as asked: instants in milliseconds, either end open. */
export interface TimeWindow {
  from?: number;
  to?: number;
}

/** A window's place in the ascending log: offsets [lower, upper). */
export interface WindowBounds {
  lower: number;
  upper: number;
}

/**
 * The window of a filter, checked before any call: undefined without `from` and `to`. A window
 * needs the DATE_TIME order; `to` before `from` is a mistake, not an empty list.
 */
export function timeWindow(filter: TrafficLogFilter | null | undefined, orderBy: TrafficLogOrder | null | undefined): TimeWindow | undefined {
  const from = filter?.from ?? undefined;
  const to = filter?.to ?? undefined;
  if (from === undefined && to === undefined) return undefined;
  if (orderBy && orderBy.field !== 'DATE_TIME') {
    throw badUserInput(`A time window (filter.from, filter.to) needs orderBy.field DATE_TIME, in either direction; got ${orderBy.field}.`, 'orderBy');
  }
  if (from !== undefined && to !== undefined && to.getTime() < from.getTime()) {
    throw badUserInput('filter.to must not be earlier than filter.from.', 'filter.to');
  }
  return { ...(from ? { from: from.getTime() } : {}), ...(to ? { to: to.getTime() } : {}) };
}

/** How a window reads in a cursor's binding and a link: its instants as RFC 3339. */
export function windowKey(window: TimeWindow): [string | null, string | null] {
  return [window.from === undefined ? null : new Date(window.from).toISOString(), window.to === undefined ? null : new Date(window.to).toISOString()];
}

/** A page of the log as the search reads it: v1's paging and order, the filter added by the caller. */
interface PageQuery {
  limit: number;
  offset: number;
  order: string;
  actions?: string[];
  search?: string;
}

type PageLoader = (query: PageQuery) => Promise<WireList<WireTrafficLogEntry>>;

/**
 * The windows of one operation: bounds found once per (device, search, actions, window), and
 * what every search learned of each log kept for the next ones.
 */
export class TrafficWindows {
  readonly #logs = new Map<string, TimeOrderedLog>();
  readonly #bounds = new Map<string, Promise<WindowBounds>>();

  constructor(private readonly page: WindowPageReader) {}

  bounds(deviceId: string, filter: { actions?: string[]; search?: string }, window: TimeWindow): Promise<WindowBounds> {
    const logKey = JSON.stringify([deviceId, filter.actions ?? null, filter.search ?? null]);
    const key = JSON.stringify([logKey, window.from ?? null, window.to ?? null]);
    let bounds = this.#bounds.get(key);
    if (bounds === undefined) {
      let log = this.#logs.get(logKey);
      if (log === undefined) this.#logs.set(logKey, (log = new TimeOrderedLog()));
      bounds = findBounds(window, log, (query) => this.page(deviceId, { ...query, ...filter }));
      this.#bounds.set(key, bounds);
    }
    return bounds;
  }
}

/** A page of a device's log, read with a client. */
export type WindowPageReader = (deviceId: string, query: PageQuery) => Promise<WireList<WireTrafficLogEntry>>;

/**
 * Windows read from the upstream now, never from the response cache or an operation's loaders:
 * for reads that fix something lasting (a link's bounds and its authorization, where a tail
 * starts), which must hold now, not when a page was cached. A page asked twice of one instance
 * (the search's last probe, then the entry it found) is read once.
 */
export function liveWindows(client: UpstreamClient): { windows: TrafficWindows; page: WindowPageReader } {
  const pages = new Map<string, Promise<WireList<WireTrafficLogEntry>>>();
  const page: WindowPageReader = (deviceId, query) => {
    const key = JSON.stringify([deviceId, query.limit, query.offset, query.order, query.actions ?? null, query.search ?? null]);
    let read = pages.get(key);
    if (read === undefined) pages.set(key, (read = listTraffic(client, deviceId, query, { live: true })));
    return read;
  };
  return { windows: new TrafficWindows(page), page };
}

async function findBounds(window: TimeWindow, log: TimeOrderedLog, page: PageLoader): Promise<WindowBounds> {
  const probe: TimeProbe = async (offset) => {
    // The last entry is the first of the descending order: the same call count, one round less.
    const answer = offset === 'last' ? await page({ limit: 1, offset: 0, order: `-${ASCENDING}` }) : await page({ limit: 1, offset, order: ASCENDING });
    const entry = answer.data[0];
    return { total: answer.total, time: entry === undefined ? undefined : Date.parse(entry.date_time) };
  };
  const instants = [window.from, window.to].filter((instant): instant is number => instant !== undefined);
  const found = await findInstants(instants, probe, log);
  // An open end: the log's start, or its length as last read.
  const lower = window.from === undefined ? 0 : found.get(window.from)!;
  const upper = window.to === undefined ? (log.total ?? (await probe(0)).total) : found.get(window.to)!;
  return { lower, upper: Math.max(lower, upper) };
}

/**
 * Items [offset, offset + limit) of the window in `direction`, read in ascending order inside the
 * bounds (one call, none when the range is empty), and the window's count.
 */
export async function windowPage(
  bounds: WindowBounds,
  direction: OrderDirection,
  offset: number,
  limit: number,
  read: (offset: number, limit: number) => Promise<WireTrafficLogEntry[]>,
): Promise<{ total: number; items: WireTrafficLogEntry[] }> {
  const total = bounds.upper - bounds.lower;
  const count = Math.min(limit, total - offset);
  if (count <= 0) return { total, items: [] };
  if (direction === 'ASC') return { total, items: await read(bounds.lower + offset, count) };
  const items = await read(bounds.upper - offset - count, count);
  return { total, items: [...items].reverse() };
}
