// Demo seeding: fills an empty database with the generated demo data (see ./generate.ts).
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
  const { devices, traffic, hotTraffic } = { ...DEFAULT_SEED_SIZES, ...sizes };
  const data = demoCatalogue();
  // Checked before anything is generated: a restart over a seeded database costs nothing.
  if (countOrganizations(db) > 0) {
    return data.apiKeys.filter(({ key }) => findKeyByHash(db, hashApiKey(key)) !== undefined);
  }
  const deviceList = demoDevices(devices);
  const seed = db.transaction(() => {
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
  });
  seed.immediate();
  analyzeAfterBulkLoad(db);
  return data.apiKeys;
}
