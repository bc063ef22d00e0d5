import type { WebProtectionCheck, WebProtectionRecord } from '../records.ts';
import type { Database } from './database.ts';
import { statement } from './database.ts';
import { organizationExists } from './organizations.ts';

/** A web protection record as stored: the organization by id. */
export interface WebProtectionInput {
  organizationId: number;
  email: string;
  fqdn: string;
  endpoint: string;
  services: string[];
  check: WebProtectionCheck;
}

/** The fields an edit may change (operation 5); absent ones stay. */
export interface WebProtectionPatch {
  organizationId?: number;
  email?: string;
  fqdn?: string;
  endpoint?: string;
  services?: string[];
}

export interface RecordRow {
  id: number;
  email: string;
  fqdn: string;
  endpoint: string;
  services: string;
  check_block: string;
  organization_id: number;
  organization_name: string;
  organization_logo: string;
}

export const SELECT_RECORD = `
  SELECT r.id, r.email, r.fqdn, r.endpoint, r.services, r.check_block,
         o.id AS organization_id, o.name AS organization_name, o.logo AS organization_logo
  FROM web_protection_records r JOIN organizations o ON o.id = r.organization_id`;

export function toRecord(row: RecordRow): WebProtectionRecord {
  return {
    id: row.id,
    organization: { id: row.organization_id, name: row.organization_name, logo: row.organization_logo },
    email: row.email,
    fqdn: row.fqdn,
    check: JSON.parse(row.check_block) as WebProtectionCheck,
    endpoint: row.endpoint,
    services: JSON.parse(row.services) as string[],
  };
}

/** Stores a record (there is no create operation: seeding and test setup) and returns its id. */
export function insertWebProtectionRecord(db: Database, input: WebProtectionInput & { id?: number }): number {
  const result = statement(
    db,
    `INSERT INTO web_protection_records (id, organization_id, email, fqdn, endpoint, services, check_block)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    input.id ?? null,
    input.organizationId,
    input.email,
    input.fqdn,
    input.endpoint,
    JSON.stringify(input.services),
    JSON.stringify(input.check),
  );
  return Number(result.lastInsertRowid);
}

export function getWebProtectionRecord(db: Database, id: number): WebProtectionRecord | undefined {
  const row = statement<[number], RecordRow>(db, `${SELECT_RECORD} WHERE r.id = ?`).get(id);
  return row && toRecord(row);
}

/** Every record, of one organization when given, by id. */
export function listWebProtectionRecords(db: Database, organizationId?: number): WebProtectionRecord[] {
  const rows =
    organizationId === undefined
      ? statement<[], RecordRow>(db, `${SELECT_RECORD} ORDER BY r.id`).all()
      : statement<[number], RecordRow>(db, `${SELECT_RECORD} WHERE r.organization_id = ? ORDER BY r.id`).all(
          organizationId,
        );
  return rows.map(toRecord);
}

// For a key of `scope`: the records of its organization, or every record when it is null.
const IN_SCOPE = '(@scope IS NULL OR r.organization_id = @scope)';

/** The fields the record list may be ordered by (extension E1). */
export const WEB_PROTECTION_ORDER_FIELDS = ['id', 'fqdn'] as const;

export type WebProtectionOrderField = (typeof WEB_PROTECTION_ORDER_FIELDS)[number];

export interface WebProtectionListQuery {
  order: { field: WebProtectionOrderField; descending: boolean };
  limit: number;
  offset: number;
}

/**
 * A page of the records in `scope` (an organization id, or null for every one) and the count of
 * all of them. Ties in the order are broken by id ascending, as in the device list, so pages
 * neither overlap nor skip.
 */
export function pageWebProtectionRecords(
  db: Database,
  scope: number | null,
  query: WebProtectionListQuery,
): { total: number; data: WebProtectionRecord[] } {
  const direction = query.order.descending ? 'DESC' : 'ASC';
  const orderBy = query.order.field === 'id' ? `r.id ${direction}` : `r.fqdn ${direction}, r.id ASC`;
  const total = statement<[{ scope: number | null }], { n: number }>(
    db,
    `SELECT count(*) AS n FROM web_protection_records r WHERE ${IN_SCOPE}`,
  ).get({ scope })!.n;
  const rows = statement<[{ scope: number | null; limit: number; offset: number }], RecordRow>(
    db,
    `${SELECT_RECORD} WHERE ${IN_SCOPE} ORDER BY ${orderBy} LIMIT @limit OFFSET @offset`,
  ).all({ scope, limit: query.limit, offset: query.offset });
  return { total, data: rows.map(toRecord) };
}

/** What an edit answers when `patch` names an organization that does not exist. */
export const UNKNOWN_ORGANIZATION = 'unknown organization';

/**
 * Applies the fields present in `patch` to the record, when it exists and is in `scope` (an
 * organization id, or null for every one), and returns the record after the edit. Undefined when
 * there is no such record; UNKNOWN_ORGANIZATION, changing nothing, when `patch` moves it to an
 * organization that does not exist.
 */
export function updateWebProtectionRecord(
  db: Database,
  scope: number | null,
  id: number,
  patch: WebProtectionPatch,
): WebProtectionRecord | typeof UNKNOWN_ORGANIZATION | undefined {
  const update = db.transaction(() => {
    const found = statement<[{ id: number; scope: number | null }]>(
      db,
      `SELECT 1 FROM web_protection_records r WHERE r.id = @id AND ${IN_SCOPE}`,
    ).get({ id, scope });
    if (found === undefined) return undefined;
    if (patch.organizationId !== undefined && !organizationExists(db, patch.organizationId)) return UNKNOWN_ORGANIZATION;
    // COALESCE keeps a column whose new value is not given (none of these columns is nullable).
    statement(
      db,
      `UPDATE web_protection_records SET
         organization_id = coalesce(?, organization_id),
         email = coalesce(?, email),
         fqdn = coalesce(?, fqdn),
         endpoint = coalesce(?, endpoint),
         services = coalesce(?, services)
       WHERE id = ?`,
    ).run(
      patch.organizationId ?? null,
      patch.email ?? null,
      patch.fqdn ?? null,
      patch.endpoint ?? null,
      patch.services === undefined ? null : JSON.stringify(patch.services),
      id,
    );
    return getWebProtectionRecord(db, id);
  });
  return update.immediate();
}

/**
 * Removes the record, when it exists and is in `scope` (an organization id, or null for every
 * one), and returns it as it was; undefined when there is no such record.
 */
export function deleteWebProtectionRecord(db: Database, scope: number | null, id: number): WebProtectionRecord | undefined {
  const remove = db.transaction(() => {
    const row = statement<[{ id: number; scope: number | null }], RecordRow>(
      db,
      `${SELECT_RECORD} WHERE r.id = @id AND ${IN_SCOPE}`,
    ).get({ id, scope });
    if (row) statement(db, 'DELETE FROM web_protection_records WHERE id = ?').run(id);
    return row && toRecord(row);
  });
  return remove.immediate();
}
