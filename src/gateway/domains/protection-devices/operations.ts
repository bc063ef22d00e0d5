// The v1 operations on protection devices and their traffic (rest-v1.md, operations 7–8).
import { ErrorCode, GatewayError } from '../../errors.ts';
import type { UpstreamClient } from '../../upstream/client.ts';
import type { WireList } from '../../upstream/envelope.ts';
import type { WireProtectionDevice, WireTrafficLogEntry } from './wire.ts';
import { deviceRoutes } from './routes.ts';

type Id = string | number;

export interface ListQuery {
  limit?: number | null;
  offset?: number | null;
  order?: string | null;
}

export interface ProtectionDeviceQuery extends ListQuery {
  organization?: string | number | null;
  services?: readonly string[] | null;
}

export interface TrafficQuery extends ListQuery {
  actions?: readonly string[] | null;
  search?: string | null;
}

function setIfGiven(query: URLSearchParams, name: string, value: string | number | null | undefined): void {
  if (value !== undefined && value !== null) query.set(name, String(value));
}

function appendAll(query: URLSearchParams, name: string, values: readonly string[] | null | undefined): void {
  for (const value of values ?? []) query.append(name, value);
}

function listQuery(q: ListQuery): URLSearchParams {
  const query = new URLSearchParams();
  setIfGiven(query, 'limit', q.limit);
  setIfGiven(query, 'offset', q.offset);
  setIfGiven(query, 'order', q.order);
  return query;
}

export function listProtectionDevices(client: UpstreamClient, q: ProtectionDeviceQuery = {}): Promise<WireList<WireProtectionDevice>> {
  const query = listQuery(q);
  setIfGiven(query, 'organization', q.organization);
  appendAll(query, 'services', q.services);
  return client.call(deviceRoutes.listProtectionDevices, { query });
}

/** `live`: the upstream's answer now, never a cached one (a read that authorizes a link). */
export function listTraffic(client: UpstreamClient, deviceId: Id, q: TrafficQuery = {}, options: { live?: boolean } = {}): Promise<WireList<WireTrafficLogEntry>> {
  const query = listQuery(q);
  appendAll(query, 'actions[]', q.actions);
  setIfGiven(query, 'search', q.search);
  return client.call(deviceRoutes.listTraffic, { params: { id: String(deviceId) }, query, ...(options.live ? { live: true } : {}) });
}

/**
 * Whether the upstream takes the client's key (a page of one device): false only when it refuses
 * it (401); an upstream that fails, or a key that may read no device, says nothing against it.
 */
export async function upstreamTakesKey(client: UpstreamClient): Promise<boolean> {
  try {
    await listProtectionDevices(client, { limit: 1 });
    return true;
  } catch (error) {
    return !(error instanceof GatewayError && error.code === ErrorCode.UNAUTHENTICATED);
  }
}
