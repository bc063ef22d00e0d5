// Demo seeding on PostgreSQL: once, however many processes start at once on an empty database.
// The check for emptiness and the whole seeding run in one transaction under an advisory lock:
// the first process seeds, the others wait for it and then find the organizations there.
import type pg from 'pg';
import { DEFAULT_SEED_SIZES, demoCatalogue, demoDevices, generateTraffic } from '../seed/generate.ts';
import type { SeedSizes } from '../seed/generate.ts';
import { hashApiKey } from '../storage/keys.ts';
import type { ApiKey } from '../storage/keys.ts';
import { inTransaction } from './connect.ts';
import { SEED_LOCK } from './migrate.ts';
import { countOrganizations, findKeyByHash, insertDevice, insertFramework, insertOrganization, insertWebProtectionRecord, storeApiKey } from './records.ts';
import { bulkInsertTraffic } from './traffic.ts';

export async function seedDemo(pool: pg.Pool, sizes: Partial<SeedSizes>): Promise<{ keys: ApiKey[]; seeded: boolean }> {
  const { devices, traffic, hotTraffic } = { ...DEFAULT_SEED_SIZES, ...sizes };
  const data = demoCatalogue();
  const stored = async (): Promise<ApiKey[]> => {
    const found: ApiKey[] = [];
    for (const key of data.apiKeys) if ((await findKeyByHash(pool, hashApiKey(key.key))) !== undefined) found.push(key);
    return found;
  };
  // A restart over a seeded database takes no lock.
  if ((await countOrganizations(pool)) > 0) return { keys: await stored(), seeded: false };
  const seeded = await inTransaction(pool, async (client) => {
    // Waiting for another process's seeding, and the seeding itself, are not slow queries.
    await client.query('SET LOCAL statement_timeout = 0');
    // Generating a batch of entries between two statements is not a forgotten transaction.
    await client.query('SET LOCAL idle_in_transaction_session_timeout = 0');
    await client.query('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK]);
    if ((await countOrganizations(client)) > 0) return false;
    for (const organization of data.organizations) await insertOrganization(client, organization);
    for (const { key, organizationId, label } of data.apiKeys) await storeApiKey(client, key, organizationId, label);
    for (const { organizationId, framework } of data.frameworks) {
      const id = await insertFramework(client, organizationId, framework);
      // Evidence file paths name the framework id the generator gave it.
      if (id !== framework.id) throw new Error(`demo framework ${framework.id} was stored as ${id}`);
    }
    for (const record of data.webProtectionRecords) {
      await insertWebProtectionRecord(client, {
        id: record.id,
        organizationId: record.organization.id,
        email: record.email,
        fqdn: record.fqdn,
        endpoint: record.endpoint,
        services: record.services,
        check: record.check,
      });
    }
    for (const device of demoDevices(devices)) await insertDevice(client, device);
    await bulkInsertTraffic(
      client,
      generateTraffic({ count: traffic, hotCount: hotTraffic, deviceIds: Array.from({ length: devices }, (_, i) => i + 1) }),
    );
    return true;
  });
  if (!seeded) return { keys: await stored(), seeded: false };
  // Statistics for the planner over what was just loaded.
  const client = await pool.connect();
  try {
    await client.query('SET statement_timeout = 0');
    await client.query('ANALYZE');
    await client.query('RESET statement_timeout');
  } finally {
    client.release();
  }
  return { keys: data.apiKeys, seeded: true };
}
