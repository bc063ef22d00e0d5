import type { OrganizationRef, ProtectionDevice } from '../records.ts';
import type { Database } from './database.ts';
import { statement } from './database.ts';

/** The fields the device list may be ordered by (`organization`: by its id). */
export const DEVICE_ORDER_FIELDS = [
  'id',
  'type',
  'email',
  'device_id',
  'endpoint',
  'privateIP',
  'atb_key',
  'organization',
] as const;

export type DeviceOrderField = (typeof DEVICE_ORDER_FIELDS)[number];

export const ORDER_COLUMNS: Record<DeviceOrderField, string> = {
  id: 'd.id',
  type: 'd.type',
  email: 'd.email',
  device_id: 'd.device_id',
  endpoint: 'd.endpoint',
  privateIP: 'd.private_ip',
  atb_key: 'd.atb_key',
  organization: 'd.organization_id',
};

export interface DeviceListQuery {
  /** Only this organization's devices. */
  organizationId?: number;
  /** Only devices with any of these services (none: no filter). */
  services?: readonly string[];
  order: { field: DeviceOrderField; descending: boolean };
  limit: number;
  offset: number;
}

export interface DeviceRow {
  id: number;
  organization_id: number;
  organization_name: string;
  organization_logo: string;
  atb_key: string;
  type: string;
  email: string;
  device_id: string;
  endpoint: string;
  private_ip: string;
  services: string;
  check_block: string;
  plugin: string;
}

/** The columns a device is stored in, in the order `deviceValues` gives them (SQLite and PostgreSQL alike). */
export const DEVICE_COLUMNS = 'id, organization_id, atb_key, type, email, device_id, endpoint, private_ip, services, check_block, plugin';

/** A device as the values of DEVICE_COLUMNS: its services, check and plugin as JSON text. */
export function deviceValues(device: ProtectionDevice): unknown[] {
  return [
    device.id,
    device.organization.id,
    device.atb_key,
    device.type,
    device.email,
    device.device_id,
    device.endpoint,
    device.privateIP,
    JSON.stringify(device.services),
    JSON.stringify(device.check),
    JSON.stringify(device.plugin),
  ];
}

/** Stores a device with its id; `organization.id` names its organization. */
export function insertDevice(db: Database, device: ProtectionDevice): void {
  db.transaction(() => {
    statement(db, `INSERT INTO devices (${DEVICE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(...deviceValues(device));
    const addService = statement(db, 'INSERT OR IGNORE INTO device_services (service, device_id) VALUES (?, ?)');
    for (const service of device.services) addService.run(service, device.id);
  })();
}

export const SELECT_DEVICE = `SELECT d.id, d.organization_id, o.name AS organization_name, o.logo AS organization_logo,
         d.atb_key, d.type, d.email, d.device_id, d.endpoint, d.private_ip, d.services, d.check_block, d.plugin
  FROM devices d JOIN organizations o ON o.id = d.organization_id`;

export function toDevice(row: DeviceRow): ProtectionDevice {
  const organization: OrganizationRef = { id: row.organization_id, name: row.organization_name, logo: row.organization_logo };
  return {
    id: row.id,
    organization,
    atb_key: row.atb_key,
    type: row.type,
    email: row.email,
    check: JSON.parse(row.check_block) as ProtectionDevice['check'],
    plugin: JSON.parse(row.plugin) as ProtectionDevice['plugin'],
    endpoint: row.endpoint,
    privateIP: row.private_ip,
    services: JSON.parse(row.services) as string[],
    device_id: row.device_id,
  };
}

/**
 * A page of devices and the number of all that match. Ties in the order are broken by id
 * ascending (whatever the direction), so consecutive pages neither overlap nor skip.
 */
export function listDevices(db: Database, query: DeviceListQuery): { total: number; data: ProtectionDevice[] } {
  // Both filters are always in the statement and switched off by a NULL parameter, so that one
  // prepared statement per order serves every combination.
  const where = `(@organization IS NULL OR d.organization_id = @organization)
    AND (@services IS NULL OR d.id IN (
      SELECT s.device_id FROM device_services s WHERE s.service IN (SELECT value FROM json_each(@services))))`;
  const params = {
    organization: query.organizationId ?? null,
    services: query.services && query.services.length > 0 ? JSON.stringify(query.services) : null,
  };
  const { field, descending } = query.order;
  const orderBy =
    field === 'id' ? `d.id ${descending ? 'DESC' : 'ASC'}` : `${ORDER_COLUMNS[field]} ${descending ? 'DESC' : 'ASC'}, d.id ASC`;
  const total = statement<[typeof params], { n: number }>(db, `SELECT count(*) AS n FROM devices d WHERE ${where}`).get(
    params,
  )!.n;
  // The page's ids first, then their rows: stepping over the offset reads ids alone, not each
  // skipped device's columns and organization, so a page deep in the list costs about what the
  // first one does.
  const rows = statement<[typeof params & { limit: number; offset: number }], DeviceRow>(
    db,
    `${SELECT_DEVICE} WHERE d.id IN (SELECT d.id FROM devices d WHERE ${where} ORDER BY ${orderBy} LIMIT @limit OFFSET @offset) ORDER BY ${orderBy}`,
  ).all({ ...params, limit: query.limit, offset: query.offset });
  return { total, data: rows.map(toDevice) };
}

/** The organization a device belongs to, or undefined when there is no such device. */
export function deviceOrganization(db: Database, id: number): number | undefined {
  return statement<[number], { organization_id: number }>(db, 'SELECT organization_id FROM devices WHERE id = ?').get(id)
    ?.organization_id;
}

/** Ids of every device, ascending. */
export function listDeviceIds(db: Database): number[] {
  return statement<[], number>(db, 'SELECT id FROM devices ORDER BY id').pluck().all();
}
