// The records other than traffic on PostgreSQL: keys, organizations, security frameworks, web
// protection records and devices. The same statements as the SQLite store's (storage/*.ts) in
// PostgreSQL's dialect, with numbered parameters, and the same row-to-wire conversions.
import type pg from 'pg';
import type { Control, Evidence, OrganizationRef, ProtectionDevice, SecurityFramework, WebProtectionRecord } from '../records.ts';
import { nowTimestamp } from '../storage/database.ts';
import { DEVICE_COLUMNS, deviceValues, ORDER_COLUMNS, SELECT_DEVICE, toDevice } from '../storage/devices.ts';
import type { DeviceListQuery, DeviceRow } from '../storage/devices.ts';
import { assemble, EVIDENCE_COLUMNS, evidenceValues, storedControls } from '../storage/frameworks.ts';
import type { EvidenceRow, FrameworkInput, FrameworkRow } from '../storage/frameworks.ts';
import { hashApiKey } from '../storage/keys.ts';
import type { ApiKey, KeySource, StoredKey } from '../storage/keys.ts';
import { SELECT_RECORD, toRecord, UNKNOWN_ORGANIZATION } from '../storage/web-protection.ts';
import type { RecordRow, WebProtectionInput, WebProtectionListQuery, WebProtectionPatch } from '../storage/web-protection.ts';

/** A pool or one of its clients (inside a transaction). */
export type Queryable = pg.Pool | pg.PoolClient;

/**
 * After rows were stored with ids of their own: the table's identity continues after the
 * largest, as SQLite's rowid does (constant table names only).
 */
async function continueIdentity(db: Queryable, table: 'organizations' | 'web_protection_records'): Promise<void> {
  await db.query(
    `SELECT setval(pg_get_serial_sequence($1, 'id'), m) FROM (SELECT max(id) AS m FROM ${table}) s WHERE m IS NOT NULL`,
    [table],
  );
}

export async function storeApiKey(
  db: Queryable,
  key: string,
  organizationId: number | null,
  label: string,
  source: KeySource = 'seed',
): Promise<void> {
  await db.query(
    `INSERT INTO api_keys (key_hash, organization_id, label, source) VALUES ($1, $2, $3, $4)
     ON CONFLICT (key_hash) DO UPDATE SET
       organization_id = excluded.organization_id, label = excluded.label, source = excluded.source`,
    [hashApiKey(key), organizationId, label, source],
  );
}

export async function replaceConfiguredKeys(client: pg.PoolClient, keys: readonly ApiKey[]): Promise<void> {
  await client.query(`DELETE FROM api_keys WHERE source = 'config'`);
  for (const { key, organizationId, label } of keys) await storeApiKey(client, key, organizationId, label, 'config');
}

export async function findKeyByHash(db: Queryable, keyHash: Buffer): Promise<StoredKey | undefined> {
  const { rows } = await db.query<{ key_hash: Buffer; organization_id: number | null }>(
    `SELECT k.key_hash, k.organization_id FROM api_keys k
     WHERE k.key_hash = $1
       AND (k.organization_id IS NULL OR EXISTS (SELECT 1 FROM organizations o WHERE o.id = k.organization_id))`,
    [keyHash],
  );
  const row = rows[0];
  return row && { keyHash: row.key_hash, organizationId: row.organization_id };
}

export async function insertOrganization(db: Queryable, organization: { id?: number; name: string; logo: string }): Promise<number> {
  const { rows } =
    organization.id === undefined
      ? await db.query<{ id: number }>('INSERT INTO organizations (name, logo) VALUES ($1, $2) RETURNING id', [
          organization.name,
          organization.logo,
        ])
      : await db.query<{ id: number }>('INSERT INTO organizations (id, name, logo) VALUES ($1, $2, $3) RETURNING id', [
          organization.id,
          organization.name,
          organization.logo,
        ]);
  if (organization.id !== undefined) await continueIdentity(db, 'organizations');
  return rows[0]!.id;
}

export async function getOrganization(db: Queryable, id: number): Promise<OrganizationRef | undefined> {
  return (await db.query<OrganizationRef>('SELECT id, name, logo FROM organizations WHERE id = $1', [id])).rows[0];
}

export async function organizationExists(db: Queryable, id: number): Promise<boolean> {
  return (await db.query('SELECT 1 FROM organizations WHERE id = $1', [id])).rowCount! > 0;
}

export async function countOrganizations(db: Queryable): Promise<number> {
  return (await db.query<{ n: number }>('SELECT count(*) AS n FROM organizations')).rows[0]!.n;
}

// Security frameworks. Reads of a framework with its evidence run in one REPEATABLE READ
// transaction (one snapshot), as the SQLite store's run in one transaction.

export async function listFrameworks(client: pg.PoolClient, organizationId: number): Promise<SecurityFramework[]> {
  const rows = await client.query<FrameworkRow>(
    `SELECT id, title, controls FROM security_frameworks
     WHERE organization_id = $1 AND deleted_at IS NULL ORDER BY id`,
    [organizationId],
  );
  const evidence = await client.query<EvidenceRow>(
    `SELECT ${EVIDENCE_COLUMNS} FROM evidences e
     JOIN security_frameworks f ON f.id = e.framework_id
     WHERE f.organization_id = $1 AND f.deleted_at IS NULL
     ORDER BY e.framework_id, e.control_id, e.position`,
    [organizationId],
  );
  return assemble(rows.rows, evidence.rows);
}

async function getFramework(client: pg.PoolClient, organizationId: number, id: number, lock = false): Promise<SecurityFramework | undefined> {
  const row = (
    await client.query<FrameworkRow>(
      `SELECT id, title, controls FROM security_frameworks
       WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL${lock ? ' FOR UPDATE' : ''}`,
      [id, organizationId],
    )
  ).rows[0];
  if (!row) return undefined;
  const evidence = await client.query<EvidenceRow>(
    `SELECT ${EVIDENCE_COLUMNS} FROM evidences e WHERE e.framework_id = $1 ORDER BY e.control_id, e.position`,
    [id],
  );
  return assemble([row], evidence.rows)[0];
}

export async function frameworkExists(db: Queryable, organizationId: number, id: number): Promise<boolean> {
  return (
    (await db.query('SELECT id FROM security_frameworks WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL', [id, organizationId]))
      .rowCount! > 0
  );
}

export async function createFramework(db: Queryable, organizationId: number, input: FrameworkInput): Promise<number> {
  const now = nowTimestamp();
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO security_frameworks (organization_id, title, controls, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [organizationId, input.title, storedControls(input.security_frameworks), now, now],
  );
  return rows[0]!.id;
}

/**
 * The edit, inside the caller's transaction: the UPDATE locks the row until COMMIT, so concurrent
 * edits of one framework take turns and each answers the framework as its own edit left it.
 */
export async function replaceFramework(
  client: pg.PoolClient,
  organizationId: number,
  id: number,
  input: FrameworkInput,
): Promise<SecurityFramework | undefined> {
  const result = await client.query(
    `UPDATE security_frameworks SET title = $1, controls = $2, updated_at = $3
     WHERE id = $4 AND organization_id = $5 AND deleted_at IS NULL`,
    [input.title, storedControls(input.security_frameworks), nowTimestamp(), id, organizationId],
  );
  return result.rowCount === 0 ? undefined : getFramework(client, organizationId, id);
}

export async function softDeleteFramework(client: pg.PoolClient, organizationId: number, id: number): Promise<SecurityFramework | undefined> {
  const framework = await getFramework(client, organizationId, id, true);
  if (!framework) return undefined;
  const now = nowTimestamp();
  await client.query('UPDATE security_frameworks SET deleted_at = $1, updated_at = $2 WHERE id = $3', [now, now, id]);
  return framework;
}

export async function addEvidence(db: Queryable, frameworkId: number, controlId: string, evidence: Evidence): Promise<void> {
  await db.query(
    `INSERT INTO evidences
       (framework_id, control_id, position, files, details, datetime, completed, residual_risk, user_id, user_email)
     VALUES ($1, $2, (SELECT coalesce(max(position), -1) + 1 FROM evidences WHERE framework_id = $1 AND control_id = $2),
             $3, $4, $5, $6, $7, $8, $9)`,
    [frameworkId, controlId, ...evidenceValues(evidence)],
  );
}

export async function insertFramework(
  client: pg.PoolClient,
  organizationId: number,
  framework: { title: string; security_frameworks: Control[] },
): Promise<number> {
  const id = await createFramework(client, organizationId, framework);
  for (const control of framework.security_frameworks) {
    for (const evidence of control.evidences) await addEvidence(client, id, control.id, evidence);
  }
  return id;
}

// Web protection records.

export async function insertWebProtectionRecord(db: Queryable, input: WebProtectionInput & { id?: number }): Promise<number> {
  const values = [input.organizationId, input.email, input.fqdn, input.endpoint, JSON.stringify(input.services), JSON.stringify(input.check)];
  const { rows } =
    input.id === undefined
      ? await db.query<{ id: number }>(
          `INSERT INTO web_protection_records (organization_id, email, fqdn, endpoint, services, check_block)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
          values,
        )
      : await db.query<{ id: number }>(
          `INSERT INTO web_protection_records (id, organization_id, email, fqdn, endpoint, services, check_block)
           VALUES ($7, $1, $2, $3, $4, $5, $6) RETURNING id`,
          [...values, input.id],
        );
  if (input.id !== undefined) await continueIdentity(db, 'web_protection_records');
  return rows[0]!.id;
}

export async function getWebProtectionRecord(db: Queryable, id: number, lock = false): Promise<WebProtectionRecord | undefined> {
  const row = (await db.query<RecordRow>(`${SELECT_RECORD} WHERE r.id = $1${lock ? ' FOR UPDATE OF r' : ''}`, [id])).rows[0];
  return row && toRecord(row);
}

export async function listWebProtectionRecords(db: Queryable, organizationId?: number): Promise<WebProtectionRecord[]> {
  const { rows } =
    organizationId === undefined
      ? await db.query<RecordRow>(`${SELECT_RECORD} ORDER BY r.id`)
      : await db.query<RecordRow>(`${SELECT_RECORD} WHERE r.organization_id = $1 ORDER BY r.id`, [organizationId]);
  return rows.map(toRecord);
}

/**
 * A page of the records in `scope` (an organization id, or null for every one) and the count of
 * all of them; ties in the order broken by id ascending, as on SQLite.
 */
export async function pageWebProtectionRecords(
  client: pg.PoolClient,
  scope: number | null,
  query: WebProtectionListQuery,
): Promise<{ total: number; data: WebProtectionRecord[] }> {
  const direction = query.order.descending ? 'DESC' : 'ASC';
  // The field is one of WEB_PROTECTION_ORDER_FIELDS (checked by the route).
  const orderBy = query.order.field === 'id' ? `r.id ${direction}` : `r.fqdn ${direction}, r.id ASC`;
  const inScope = '($1::integer IS NULL OR r.organization_id = $1)';
  const total = (await client.query<{ n: number }>(`SELECT count(*) AS n FROM web_protection_records r WHERE ${inScope}`, [scope])).rows[0]!.n;
  const { rows } = await client.query<RecordRow>(`${SELECT_RECORD} WHERE ${inScope} ORDER BY ${orderBy} LIMIT $2 OFFSET $3`, [
    scope,
    query.limit,
    query.offset,
  ]);
  return { total, data: rows.map(toRecord) };
}

export async function updateWebProtectionRecord(
  client: pg.PoolClient,
  scope: number | null,
  id: number,
  patch: WebProtectionPatch,
): Promise<WebProtectionRecord | typeof UNKNOWN_ORGANIZATION | undefined> {
  const found = await client.query(
    'SELECT 1 FROM web_protection_records r WHERE r.id = $1 AND ($2::integer IS NULL OR r.organization_id = $2) FOR UPDATE',
    [id, scope],
  );
  if (found.rowCount === 0) return undefined;
  if (patch.organizationId !== undefined && !(await organizationExists(client, patch.organizationId))) return UNKNOWN_ORGANIZATION;
  await client.query(
    `UPDATE web_protection_records SET
       organization_id = coalesce($1, organization_id),
       email = coalesce($2, email),
       fqdn = coalesce($3, fqdn),
       endpoint = coalesce($4, endpoint),
       services = coalesce($5, services)
     WHERE id = $6`,
    [
      patch.organizationId ?? null,
      patch.email ?? null,
      patch.fqdn ?? null,
      patch.endpoint ?? null,
      patch.services === undefined ? null : JSON.stringify(patch.services),
      id,
    ],
  );
  return getWebProtectionRecord(client, id);
}

export async function deleteWebProtectionRecord(client: pg.PoolClient, scope: number | null, id: number): Promise<WebProtectionRecord | undefined> {
  const row = (
    await client.query<RecordRow>(`${SELECT_RECORD} WHERE r.id = $1 AND ($2::integer IS NULL OR r.organization_id = $2) FOR UPDATE OF r`, [
      id,
      scope,
    ])
  ).rows[0];
  if (row) await client.query('DELETE FROM web_protection_records WHERE id = $1', [id]);
  return row && toRecord(row);
}

// Devices.

export async function insertDevice(client: Queryable, device: ProtectionDevice): Promise<void> {
  await client.query(`INSERT INTO devices (${DEVICE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, deviceValues(device));
  if (device.services.length > 0) {
    await client.query(
      `INSERT INTO device_services (service, device_id) SELECT DISTINCT s, $2::integer FROM unnest($1::text[]) s ON CONFLICT DO NOTHING`,
      [device.services, device.id],
    );
  }
}

export async function listDevices(client: pg.PoolClient, query: DeviceListQuery): Promise<{ total: number; data: ProtectionDevice[] }> {
  const where = `($1::integer IS NULL OR d.organization_id = $1)
    AND ($2::text[] IS NULL OR d.id IN (SELECT s.device_id FROM device_services s WHERE s.service = ANY($2::text[])))`;
  const params = [query.organizationId ?? null, query.services && query.services.length > 0 ? [...query.services] : null];
  const { field, descending } = query.order;
  const direction = descending ? 'DESC' : 'ASC';
  // ORDER_COLUMNS is a fixed map of the contract's field names: nothing of the request is spliced in.
  const orderBy = field === 'id' ? `d.id ${direction}` : `${ORDER_COLUMNS[field]} ${direction}, d.id ASC`;
  const total = (await client.query<{ n: number }>(`SELECT count(*) AS n FROM devices d WHERE ${where}`, params)).rows[0]!.n;
  const { rows } = await client.query<DeviceRow>(
    `${SELECT_DEVICE} WHERE d.id IN (SELECT d.id FROM devices d WHERE ${where} ORDER BY ${orderBy} LIMIT $3 OFFSET $4) ORDER BY ${orderBy}`,
    [...params, query.limit, query.offset],
  );
  return { total, data: rows.map(toDevice) };
}

export async function deviceOrganization(db: Queryable, id: number): Promise<number | undefined> {
  return (await db.query<{ organization_id: number }>('SELECT organization_id FROM devices WHERE id = $1', [id])).rows[0]?.organization_id;
}

export async function listDeviceIds(db: Queryable): Promise<number[]> {
  return (await db.query<{ id: number }>('SELECT id FROM devices ORDER BY id')).rows.map((r) => r.id);
}
