// Protection devices and their traffic logs. Lists go through the loaders (so identical pages
// in one operation are fetched once) and become Relay connections through connections.ts.
import type { ProtectionDeviceFilter, ProtectionDeviceOrder, ProtectionDeviceOrderField, Resolvers } from '../../generated/resolvers.ts';
import { DEFAULT_PAGE_SIZES, resolveOffsetConnection, type ConnectionArgs } from '../../connections/connection.ts';
import type { GatewayContext } from '../../context.ts';
import { isNotFound } from '../../errors.ts';
import { requirePositiveId } from '../common/arguments.ts';
import { chartBuckets, webStats } from '../common/statistics.ts';
import { normalisedSet, wireOrder } from './list-arguments.ts';
import { trafficConnection } from './traffic.ts';
import { createTrafficExport } from './traffic-export.ts';
import { trafficLogEntryAdded } from './traffic-tail.ts';

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

/**
 * The device with this id as the key sees it, or null: through the per-request search (loaders.ts).
 * A malformed id is BAD_USER_INPUT naming `argument`.
 */
export async function findDevice(loaders: Pick<GatewayContext['loaders'], 'deviceById'>, id: string, argument: string) {
  try {
    return await loaders.deviceById.load(requirePositiveId(id, argument));
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

export const protectionDeviceResolvers = {
  Query: {
    protectionDevices: (_parent, args, context) => deviceConnection(args, context),
    protectionDevice: (_parent, args, { loaders }) => findDevice(loaders, args.id, 'id'),
    trafficLog: (_parent, args, context) => trafficConnection(args.deviceId, args, context),
  },
  Mutation: { createTrafficExport },
  Subscription: { trafficLogEntryAdded },
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
