// The per-request loaders of devices and traffic: every such upstream read of one GraphQL operation
// goes through them, so that repeated or fanned-out fields cost one upstream call each instead of
// one per field. They are created per request (never shared across keys), which is also why
// caching in them is safe.
import DataLoader from 'dataloader';
import type { UpstreamClient } from '../../upstream/client.ts';
import type { WireList } from '../../upstream/envelope.ts';
import { isPositiveIntegerId } from '../common/arguments.ts';
import { settleEach } from '../common/settle.ts';
import { findByIds, IdOrderedList } from './device-search.ts';
import { listProtectionDevices, listTraffic } from './operations.ts';
import type { WireProtectionDevice, WireTrafficLogEntry } from './wire.ts';
import { TrafficWindows } from './traffic-window.ts';

export interface DeviceListQuery {
  limit: number;
  offset: number;
  order?: string;
  organization?: string;
  services?: string[];
}

export interface TrafficQuery {
  limit: number;
  offset: number;
  order?: string;
  actions?: string[];
  search?: string;
}

export interface DeviceLoaders {
  /** Pages of the device list, one call per distinct query. */
  devicePages: Pick<DataLoader<DeviceListQuery, WireList<WireProtectionDevice>, string>, 'load'>;
  /** Devices by id: the ids asked in one tick share one search of the id-ordered list (device-search.ts). */
  deviceById: DataLoader<string, WireProtectionDevice | null>;
  /** Pages of one device's traffic, one call per distinct (device, query). */
  trafficPages: DataLoader<TrafficPageKey, WireList<WireTrafficLogEntry>, string>;
  /** Time windows of the traffic logs: bounds found once per operation, through trafficPages. */
  trafficWindows: TrafficWindows;
}

export interface TrafficPageKey {
  deviceId: string;
  query: TrafficQuery;
}

// The loaders' keys: every field of a query in a fixed place, so that equal queries are one
// call whatever order their properties were written in. Listing the fields by hand costs a
// fraction of a generic sorted stringify (a fan-out makes 20 keys per operation); the `rest`
// checks make a field added to a query type a compile error here until the key includes it.

function devicePageKey({ limit, offset, order, organization, services, ...rest }: DeviceListQuery): string {
  rest satisfies Record<string, never>;
  return JSON.stringify([limit, offset, order ?? null, organization ?? null, services ?? null]);
}

function trafficPageKey({ deviceId, query: { limit, offset, order, actions, search, ...rest }, ...outer }: TrafficPageKey): string {
  rest satisfies Record<string, never>;
  outer satisfies Record<string, never>;
  return JSON.stringify([deviceId, limit, offset, order ?? null, actions ?? null, search ?? null]);
}

export function createDeviceLoaders(client: UpstreamClient): DeviceLoaders {
  // Devices seen in any list answer of this operation, and the list pages still on their way:
  // a lookup by id waits for those pages before it searches, so a page and lookups of its devices
  // asked in one operation cost the page alone.
  const seen = new Map<string, WireProtectionDevice>();
  const pendingPages = new Set<Promise<unknown>>();
  // What the operation's reads taught of the whole list in id order, for the searches by id.
  const idOrder = new IdOrderedList<WireProtectionDevice>();

  const pageLoader = new DataLoader<DeviceListQuery, WireList<WireProtectionDevice>, string>(
    (queries) =>
      settleEach(queries, async (query) => {
        const page = await listProtectionDevices(client, query);
        for (const device of page.data) seen.set(String(device.id), device);
        if (query.order === 'id' && !query.organization && !query.services) {
          idOrder.learn(query.offset, { total: page.total, items: page.data });
        }
        return page;
      }),
    { cacheKeyFn: devicePageKey },
  );
  const devicePages = {
    load(query: DeviceListQuery) {
      const page = pageLoader.load(query);
      const settled: Promise<unknown> = page.then(
        () => pendingPages.delete(settled),
        () => pendingPages.delete(settled),
      );
      pendingPages.add(settled);
      return page;
    },
  };

  const probeById = async (offset: number) => {
    const page = await devicePages.load({ limit: 1, offset, order: 'id' });
    return { total: page.total, item: page.data[0] };
  };
  const deviceById = new DataLoader<string, WireProtectionDevice | null>(async (ids) => {
    // Let the sibling fields of this tick ask for their pages, then wait for every page.
    await new Promise((resolve) => setImmediate(resolve));
    while (pendingPages.size > 0) await Promise.all(pendingPages);
    // v1 has no single-device read: search the list in id order, a page of one per read, through
    // devicePages so that the reads are deduplicated and counted. Ids that are not positive
    // integers cannot exist.
    const wanted = ids.filter((id) => isPositiveIntegerId(id) && !seen.has(id)).map(Number);
    const found = await findByIds(wanted, probeById, idOrder);
    return ids.map((id) => seen.get(id) ?? (isPositiveIntegerId(id) ? found.get(Number(id)) : null) ?? null);
  });

  const trafficPages = new DataLoader<TrafficPageKey, WireList<WireTrafficLogEntry>, string>(
    (keys) => settleEach(keys, ({ deviceId, query }) => listTraffic(client, deviceId, query)),
    { cacheKeyFn: trafficPageKey },
  );
  return {
    devicePages,
    deviceById,
    trafficPages,
    trafficWindows: new TrafficWindows((deviceId, query) => trafficPages.load({ deviceId, query })),
  };
}
