// Demo seeding: fills an empty database with the generated demo data (see ./generate.ts).
import { whenNotBusy } from '../storage/database.ts';
import type { Database } from '../storage/database.ts';
import { insertDevice } from '../storage/devices.ts';
import { insertFramework } from '../storage/frameworks.ts';
import { findKeyByHash, hashApiKey, storeApiKey } from '../storage/keys.ts';
import { countOrganizations, insertOrganization } from '../storage/organizations.ts';
import { analyzeAfterBulkLoad, bulkInsertTraffic } from '../storage/traffic-bulk.ts';
import { insertWebProtectionRecord } from '../storage/web-protection.ts';
import { DEFAULT_SEED_SIZES, demoCatalogue, demoDevices, generateTraffic } from './generate.ts';
import type { ApiKey } from '../storage/keys.ts';
import type { SeedSizes } from './generate.ts';

/**
 * Fills the database with demo data when it has no organization yet, in one transaction, and
 * returns the demo API keys (only their hashes are stored). On a database that already has
 * organizations nothing is written, and the demo keys it holds are returned (they are the same
 * on every run).
 */
export function seedDemo(db: Database, sizes: Partial<SeedSizes> = {}): ApiKey[] {
  return seedDemoOnce(db, sizes).keys;
}

/**
 * seedDemo, saying whether this call seeded. Several processes starting at once on one new file
 * seed it once: emptiness is checked again inside the write transaction (IMMEDIATE takes the
 * file's write lock first), and a process that finds the lock held by another's seeding waits for
 * it and then finds the organizations there.
 */
export function seedDemoOnce(db: Database, sizes: Partial<SeedSizes> = {}): { keys: ApiKey[]; seeded: boolean } {
  const { devices, traffic, hotTraffic } = { ...DEFAULT_SEED_SIZES, ...sizes };
  const data = demoCatalogue();
  const stored = (): ApiKey[] => data.apiKeys.filter(({ key }) => findKeyByHash(db, hashApiKey(key)) !== undefined);
  // Checked before anything is generated: a restart over a seeded database costs nothing.
  if (countOrganizations(db) > 0) return { keys: stored(), seeded: false };
  const deviceList = demoDevices(devices);
  const seed = db.transaction((): boolean => {
    if (countOrganizations(db) > 0) return false;
    for (const organization of data.organizations) insertOrganization(db, organization);
    for (const { key, organizationId, label } of data.apiKeys) storeApiKey(db, key, organizationId, label);
    for (const { organizationId, framework } of data.frameworks) {
      const id = insertFramework(db, organizationId, framework);
      // Evidence file paths name the framework id the generator gave it.
      if (id !== framework.id) throw new Error(`demo framework ${framework.id} was stored as ${id}`);
    }
    for (const record of data.webProtectionRecords) {
      insertWebProtectionRecord(db, {
        id: record.id,
        organizationId: record.organization.id,
        email: record.email,
        fqdn: record.fqdn,
        endpoint: record.endpoint,
        services: record.services,
        check: record.check,
      });
    }
    for (const device of deviceList) insertDevice(db, device);
    bulkInsertTraffic(
      db,
      generateTraffic({ count: traffic, hotCount: hotTraffic, deviceIds: Array.from({ length: devices }, (_, i) => i + 1) }),
    );
    return true;
  });
  if (!whenNotBusy(() => seed.immediate())) return { keys: stored(), seeded: false };
  analyzeAfterBulkLoad(db);
  return { keys: data.apiKeys, seeded: true };
}
