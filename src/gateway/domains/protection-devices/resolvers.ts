// Protection devices and their traffic logs. Lists go through the loaders (so identical pages
// in one operation are fetched once) and become Relay connections through connections.ts.
import type {
  OrderDirection,
  ProtectionDeviceFilter,
  ProtectionDeviceOrder,
  ProtectionDeviceOrderField,
  Resolvers,
  TrafficLogEntry,
  TrafficLogFilter,
  TrafficLogOrder,
  TrafficLogOrderField,
} from '../../generated/resolvers.ts';
import { DEFAULT_PAGE_SIZES, resolveOffsetConnection, type ConnectionArgs } from '../../connections/connection.ts';
import type { GatewayContext } from '../../context.ts';
import { isNotFound } from '../../errors.ts';
import { isPositiveIntegerId, requirePositiveId } from '../common/arguments.ts';
import { chartBuckets, webStats } from '../common/statistics.ts';
import type { WireTrafficLogEntry } from './wire.ts';

// v1's `order` field for each order of the schema: keyed by the generated enums, so a value added
// to the schema fails to compile until it is mapped here.
const DEVICE_ORDER_FIELDS: Record<ProtectionDeviceOrderField, string> = {
  ID: 'id',
  TYPE: 'type',
  EMAIL: 'email',
  DEVICE_ID: 'device_id',
  ENDPOINT: 'endpoint',
  PRIVATE_IP: 'privateIP',
  ATB_KEY: 'atb_key',
  ORGANIZATION: 'organization',
};

const TRAFFIC_ORDER_FIELDS: Record<TrafficLogOrderField, string> = {
  DATE_TIME: 'date_time',
  ID: 'id',
  TYPE: 'type',
  SRC_IP: 'src_ip',
  DEST_IP: 'dest_ip',
  DEST_PORT: 'dest_port',
};

/** v1's `order`: the field, with `-` in front for descending. */
function wireOrder<F extends string>(fields: Record<F, string>, order: { field: F; direction?: OrderDirection | null }, fallbackDirection: OrderDirection): string {
  return ((order.direction ?? fallbackDirection) === 'DESC' ? '-' : '') + fields[order.field];
}

/** Lists of filter values are sets: sorted and de-duplicated, so equal filters bind equal cursors. */
function normalisedSet(values: readonly string[] | null | undefined): string[] | undefined {
  if (!values || values.length === 0) return undefined;
  return [...new Set(values)].sort();
}

interface TrafficArgs extends ConnectionArgs {
  filter?: TrafficLogFilter | null;
  orderBy?: TrafficLogOrder | null;
}

export function trafficConnection(deviceId: string, args: TrafficArgs, { loaders }: GatewayContext) {
  const id = requirePositiveId(deviceId, 'deviceId');
  const order = wireOrder(TRAFFIC_ORDER_FIELDS, args.orderBy ?? { field: 'DATE_TIME' }, 'DESC');
  const actions = normalisedSet(args.filter?.actions);
  const search = args.filter?.search?.trim().replace(/\s+/g, ' ') || undefined;
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
 * An entry in its GraphQL shape, mapped once per page: a page holds up to hundreds of them, and
 * a field the executor reads as a property costs it far less than one it resolves (see
 * statistics.ts).
 */
function trafficLogEntry(entry: WireTrafficLogEntry): TrafficLogEntry {
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

interface DeviceArgs extends ConnectionArgs {
  filter?: ProtectionDeviceFilter | null;
  orderBy?: ProtectionDeviceOrder | null;
}

function deviceConnection(args: DeviceArgs, { loaders }: GatewayContext) {
  const order = wireOrder(DEVICE_ORDER_FIELDS, args.orderBy ?? { field: 'ID' }, 'ASC');
  const organization = args.filter?.organizationId == null ? undefined : requirePositiveId(args.filter.organizationId, 'filter.organizationId');
  const services = normalisedSet(args.filter?.services);
  return resolveOffsetConnection(args, {
    binding: JSON.stringify(['devices', order, organization ?? null, services ?? null]),
    defaultSize: DEFAULT_PAGE_SIZES.ProtectionDeviceConnection,
    fetch: async (offset, limit) => {
      const page = await loaders.devicePages.load({ limit, offset, order, organization, services });
      return { total: page.total, items: page.data };
    },
  });
}

export const protectionDeviceResolvers = {
  Query: {
    protectionDevices: (_parent, args, context) => deviceConnection(args, context),
    async protectionDevice(_parent, args, { loaders }) {
      if (!isPositiveIntegerId(args.id)) return null;
      try {
        return await loaders.deviceById.load(args.id);
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },
    trafficLog: (_parent, args, context) => trafficConnection(args.deviceId, args, context),
  },
  ProtectionDevice: {
    id: (device) => String(device.id),
    atbKey: (device) => device.atb_key,
    privateIp: (device) => device.privateIP,
    deviceId: (device) => device.device_id,
    traffic: (device, args, context) => trafficConnection(String(device.id), args, context),
  },
  DeviceCheck: {
    webStat: (check) => webStats(check.web_stat),
    chartStat: (check) => chartBuckets(check.chart_stat),
  },
} satisfies Resolvers;
