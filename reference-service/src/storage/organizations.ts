import type { OrganizationRef } from '../records.ts';
import type { Database } from './database.ts';
import { statement } from './database.ts';

/** Inserts an organization (with its id when given) and returns its id. */
export function insertOrganization(db: Database, organization: { id?: number; name: string; logo: string }): number {
  const result = statement(db, 'INSERT INTO organizations (id, name, logo) VALUES (?, ?, ?)').run(
    organization.id ?? null,
    organization.name,
    organization.logo,
  );
  return Number(result.lastInsertRowid);
}

export function getOrganization(db: Database, id: number): OrganizationRef | undefined {
  return statement<[number], OrganizationRef>(db, 'SELECT id, name, logo FROM organizations WHERE id = ?').get(id);
}

export function organizationExists(db: Database, id: number): boolean {
  return statement<[number], { one: number }>(db, 'SELECT 1 AS one FROM organizations WHERE id = ?').get(id) !== undefined;
}

export function countOrganizations(db: Database): number {
  return statement<[], { n: number }>(db, 'SELECT count(*) AS n FROM organizations').get()!.n;
}
