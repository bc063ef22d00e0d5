// `Mutation.createTrafficExport`: a download link for a device's traffic. Minting one first reads
// the device's log with the caller's key (a page of one, with the same filter), so a link is
// never made for a device the key may not read, nor for a filter v1 refuses; the download then
// acts with that key, which the gateway keeps and the link never shows (export-links/). A time
// window's bounds are found here, once, and kept in the link: its download reads the window's
// pages (`trafficWindowPages`), which the gateway writes in the upstream export's format.
import type { MutationResolvers, TrafficExportFormat } from '../../generated/resolvers.ts';
import type { ExportedEntry, ExportFormat, ExportLink } from '../../export-links/index.ts';
import type { UpstreamClient } from '../../upstream/client.ts';
import { requirePositiveId } from '../common/arguments.ts';
import { trafficFilter, wireOrder } from './list-arguments.ts';
import { listTraffic } from './operations.ts';
import { TRAFFIC_ORDER_FIELDS } from './traffic.ts';
import { ASCENDING, liveWindows, timeWindow, windowKey } from './traffic-window.ts';

const FORMATS: Record<TrafficExportFormat, ExportFormat> = { CSV: 'csv', NDJSON: 'ndjson' };

/** Entries read per upstream call while a window's file is written: v1's largest page. */
const WINDOW_PAGE = 1000;

export const createTrafficExport: NonNullable<MutationResolvers['createTrafficExport']> = async (_parent, args, context) => {
  const deviceId = requirePositiveId(args.deviceId, 'deviceId');
  const window = timeWindow(args.filter, args.orderBy);
  const order = wireOrder(TRAFFIC_ORDER_FIELDS, args.orderBy ?? { field: 'DATE_TIME' }, 'DESC');
  const filter = trafficFilter(args.filter);
  let bounds: ExportLink['window'];
  // Every read that authorizes a link is asked of the upstream now, never of the response cache
  // or the operation's loaders: a link made from a cached (or stale) read could outlive the key's
  // access, or be minted while the upstream is down.
  if (window) {
    // The search reads the log with the caller's key: it checks access as the page of one does.
    const { lower, upper } = await liveWindows(context.upstream).windows.bounds(deviceId, filter, window);
    const [from, to] = windowKey(window);
    bounds = { ...(from ? { from } : {}), ...(to ? { to } : {}), lower, upper };
  } else await listTraffic(context.upstream, deviceId, { limit: 1, order, ...filter }, { live: true });
  const { url, expiresAt } = await context.exportLinks.mint(context.origin, {
    apiKey: context.apiKey ?? '',
    deviceId,
    format: FORMATS[args.format],
    order,
    ...filter,
    ...(bounds ? { window: bounds } : {}),
  }, context.caller?.user?.expiresAt); // a signed-in user's link ends no later than its token
  return { export: { url, format: args.format, expiresAt: new Date(expiresAt).toISOString() } };
};

/**
 * A window's entries in the link's order, page by page: ascending pages from its start, or, for
 * the newest first, ascending pages from its end backwards, each reversed.
 */
export async function* trafficWindowPages(client: UpstreamClient, link: ExportLink): AsyncGenerator<ExportedEntry[]> {
  const { lower, upper } = link.window!;
  const descending = link.order.startsWith('-');
  const filter = { ...(link.actions ? { actions: link.actions } : {}), ...(link.search ? { search: link.search } : {}) };
  // The first page read shows that the link's key may still read the log; an empty window has
  // none, so a page of one is read to show it before its empty file is sent.
  if (upper <= lower) {
    await listTraffic(client, link.deviceId, { limit: 1, ...filter }, { live: true });
    return;
  }
  for (let done = 0; done < upper - lower; ) {
    const count = Math.min(WINDOW_PAGE, upper - lower - done);
    const offset = descending ? upper - done - count : lower + done;
    const page = await listTraffic(client, link.deviceId, { limit: count, offset, order: ASCENDING, ...filter }, { live: true });
    // The log shrank under the window: what is left of it was written.
    if (page.data.length === 0) return;
    yield descending ? [...page.data].reverse() : page.data;
    done += count;
  }
}
