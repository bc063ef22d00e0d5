// A device's traffic log as a connection, and its entries in their GraphQL shape.
import type { TrafficLogEntry, TrafficLogFilter, TrafficLogOrder, TrafficLogOrderField } from '../../generated/resolvers.ts';
import { checkConnectionArgs, DEFAULT_PAGE_SIZES, resolveOffsetConnection, type ConnectionArgs } from '../../connections/connection.ts';
import type { GatewayContext } from '../../context.ts';
import { requirePositiveId } from '../common/arguments.ts';
import { trafficFilter, wireOrder } from './list-arguments.ts';
import { ASCENDING, timeWindow, windowKey, windowPage, type TimeWindow } from './traffic-window.ts';
import type { WireTrafficLogEntry } from './wire.ts';

export const TRAFFIC_ORDER_FIELDS: Record<TrafficLogOrderField, string> = {
  DATE_TIME: 'date_time',
  ID: 'id',
  TYPE: 'type',
  SRC_IP: 'src_ip',
  DEST_IP: 'dest_ip',
  DEST_PORT: 'dest_port',
};

interface TrafficArgs extends ConnectionArgs {
  filter?: TrafficLogFilter | null;
  orderBy?: TrafficLogOrder | null;
}

export function trafficConnection(deviceId: string, args: TrafficArgs, context: GatewayContext) {
  const id = requirePositiveId(deviceId, 'deviceId');
  const window = timeWindow(args.filter, args.orderBy);
  if (window) return windowConnection(id, window, args, context);
  const { loaders } = context;
  const order = wireOrder(TRAFFIC_ORDER_FIELDS, args.orderBy ?? { field: 'DATE_TIME' }, 'DESC');
  const { actions, search } = trafficFilter(args.filter);
  return resolveOffsetConnection<TrafficLogEntry>(args, {
    binding: JSON.stringify(['traffic', id, order, actions ?? null, search ?? null]),
    defaultSize: DEFAULT_PAGE_SIZES.TrafficLogConnection,
    fetch: async (offset, limit) => {
      const page = await loaders.trafficPages.load({ deviceId: id, query: { limit, offset, order, actions, search } });
      return { total: page.total, items: page.data.map(trafficLogEntry) };
    },
  });
}

/**
 * The connection over a time window: its bounds first (found once per operation and shared by
 * every field that reads the same window), then pages at offsets inside them. Offsets in cursors
 * count from the window's start in the order asked, and the binding names the window.
 */
async function windowConnection(id: string, window: TimeWindow, args: TrafficArgs, { loaders }: GatewayContext) {
  const direction = args.orderBy?.direction ?? 'DESC';
  const filter = trafficFilter(args.filter);
  const binding = JSON.stringify(['traffic', id, `${direction === 'DESC' ? '-' : ''}${ASCENDING}`, filter.actions ?? null, filter.search ?? null, ...windowKey(window)]);
  // Bad paging arguments or a foreign cursor cost no call: checked before the bounds are searched.
  checkConnectionArgs(args, { binding, defaultSize: DEFAULT_PAGE_SIZES.TrafficLogConnection });
  const bounds = await loaders.trafficWindows.bounds(id, filter, window);
  const read = async (offset: number, limit: number) =>
    (await loaders.trafficPages.load({ deviceId: id, query: { limit, offset, order: ASCENDING, ...filter } })).data;
  return resolveOffsetConnection<TrafficLogEntry>(args, {
    binding,
    defaultSize: DEFAULT_PAGE_SIZES.TrafficLogConnection,
    total: bounds.upper - bounds.lower,
    fetch: async (offset, limit) => {
      const page = await windowPage(bounds, direction, offset, limit, read);
      return { total: page.total, items: page.items.map(trafficLogEntry) };
    },
  });
}

/**
 * An entry in its GraphQL shape, mapped once per page: a page holds up to hundreds of them, and
 * a field the executor reads as a property costs it far less than one it resolves (see
 * statistics.ts).
 */
export function trafficLogEntry(entry: WireTrafficLogEntry): TrafficLogEntry {
  return {
    id: String(entry.id),
    dateTime: entry.date_time,
    type: entry.type,
    srcIp: entry.src_ip,
    destIp: entry.dest_ip,
    destPort: entry.dest_port,
    logMessage: entry.log_message,
    extra: entry.extra,
  };
}

