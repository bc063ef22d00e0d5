import { createHash } from 'node:crypto';
import type { Database } from './database.ts';
import { statement } from './database.ts';

/** A key as configuration or demo seeding gives it; only its SHA-256 is stored. */
export interface ApiKey {
  key: string;
  /** null: an admin key, valid for every organization. */
  organizationId: number | null;
  /** Says to people where the key came from (never the key). */
  label: string;
}

export interface StoredKey {
  keyHash: Buffer;
  /** null: an admin key, valid for every organization. */
  organizationId: number | null;
}

/** Where a stored key came from: demo seeding (kept) or `V1_API_KEYS` (replaced on each start). */
export type KeySource = 'seed' | 'config';

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/**
 * Stores the SHA-256 of `key` (never the key) for one organization, or for all when
 * `organizationId` is null. Storing a key again updates its scope and label.
 */
export function storeApiKey(
  db: Database,
  key: string,
  organizationId: number | null,
  label: string,
  source: KeySource = 'seed',
): void {
  statement(
    db,
    `INSERT INTO api_keys (key_hash, organization_id, label, source) VALUES (?, ?, ?, ?)
     ON CONFLICT (key_hash) DO UPDATE SET
       organization_id = excluded.organization_id, label = excluded.label, source = excluded.source`,
  ).run(hashApiKey(key), organizationId, label, source);
}

/** Makes the configured keys exactly `keys`: a key dropped from the configuration stops working. */
export function replaceConfiguredKeys(db: Database, keys: readonly ApiKey[]): void {
  db.transaction(() => {
    statement(db, `DELETE FROM api_keys WHERE source = 'config'`).run();
    for (const { key, organizationId, label } of keys) storeApiKey(db, key, organizationId, label, 'config');
  })();
}

/**
 * The key stored under this hash, when its organization exists (a key naming an organization
 * that does not exist authenticates nobody).
 */
export function findKeyByHash(db: Database, keyHash: Buffer): StoredKey | undefined {
  const row = statement<[Buffer], { key_hash: Buffer; organization_id: number | null }>(
    db,
    `SELECT k.key_hash, k.organization_id FROM api_keys k
     WHERE k.key_hash = ?
       AND (k.organization_id IS NULL OR EXISTS (SELECT 1 FROM organizations o WHERE o.id = k.organization_id))`,
  ).get(keyHash);
  return row && { keyHash: row.key_hash, organizationId: row.organization_id };
}
