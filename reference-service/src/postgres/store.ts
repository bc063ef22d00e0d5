// The V1Store on PostgreSQL (`V1_DATABASE=postgres://…`): as many service processes as needed on
// one database. No process keeps records in memory, so each sees the others' writes at once;
// every change of several rows is one transaction; reads that take several statements read one
// snapshot (REPEATABLE READ), as the SQLite store's do.
import type pg from 'pg';
import type { Control, Evidence, ProtectionDevice } from '../records.ts';
import type { SeedSizes } from '../seed/generate.ts';
import type { DeviceListQuery } from '../storage/devices.ts';
import type { FrameworkInput } from '../storage/frameworks.ts';
import type { ApiKey, KeySource } from '../storage/keys.ts';
import type { V1Store } from '../storage/store.ts';
import type { ExportFormat } from '../storage/traffic-export.ts';
import type { NewTrafficEntry, TrafficFilter, TrafficOrder } from '../storage/traffic.ts';
import type { WebProtectionInput, WebProtectionListQuery, WebProtectionPatch } from '../storage/web-protection.ts';
import { createPool, describeConnectError, EXPORT_POOL_SIZE, inTransaction, parseDatabaseUrl, POOL_SIZE } from './connect.ts';
import { migrate } from './migrate.ts';
import * as records from './records.ts';
import { seedDemo } from './seed.ts';
import { bulkInsertTraffic, exportTraffic, insertTrafficRows, listTraffic } from './traffic.ts';
import { HexSample } from './traffic-sample.ts';

const SNAPSHOT = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

export class PostgresStore implements V1Store {
  readonly kind = 'postgres' as const;
  /** What the traffic search knows of how its second index narrows (see traffic-sample.ts). */
  readonly searchSample = new HexSample();

  constructor(
    /** Requests' connections. */
    readonly pool: pg.Pool,
    /** Exports' connections (each export holds one while its client reads). */
    private readonly exportPool: pg.Pool,
  ) {}

  findKeyByHash(keyHash: Buffer) {
    return records.findKeyByHash(this.pool, keyHash);
  }
  storeApiKey(key: string, organizationId: number | null, label: string, source?: KeySource) {
    return records.storeApiKey(this.pool, key, organizationId, label, source);
  }
  replaceConfiguredKeys(keys: readonly ApiKey[]) {
    return inTransaction(this.pool, (client) => records.replaceConfiguredKeys(client, keys));
  }

  insertOrganization(organization: { id?: number; name: string; logo: string }) {
    return inTransaction(this.pool, (client) => records.insertOrganization(client, organization));
  }
  getOrganization(id: number) {
    return records.getOrganization(this.pool, id);
  }
  organizationExists(id: number) {
    return records.organizationExists(this.pool, id);
  }

  listFrameworks(organizationId: number) {
    return inTransaction(this.pool, (client) => records.listFrameworks(client, organizationId), SNAPSHOT);
  }
  frameworkExists(organizationId: number, id: number) {
    return records.frameworkExists(this.pool, organizationId, id);
  }
  createFramework(organizationId: number, input: FrameworkInput) {
    return records.createFramework(this.pool, organizationId, input);
  }
  replaceFramework(organizationId: number, id: number, input: FrameworkInput) {
    return inTransaction(this.pool, (client) => records.replaceFramework(client, organizationId, id, input));
  }
  softDeleteFramework(organizationId: number, id: number) {
    return inTransaction(this.pool, (client) => records.softDeleteFramework(client, organizationId, id));
  }
  addEvidence(frameworkId: number, controlId: string, evidence: Evidence) {
    // The position is the next one of the control's: one writer at a time per framework.
    return inTransaction(this.pool, async (client) => {
      await client.query('SELECT 1 FROM security_frameworks WHERE id = $1 FOR UPDATE', [frameworkId]);
      await records.addEvidence(client, frameworkId, controlId, evidence);
    });
  }
  insertFramework(organizationId: number, framework: { title: string; security_frameworks: Control[] }) {
    return inTransaction(this.pool, (client) => records.insertFramework(client, organizationId, framework));
  }

  insertWebProtectionRecord(input: WebProtectionInput & { id?: number }) {
    return inTransaction(this.pool, (client) => records.insertWebProtectionRecord(client, input));
  }
  getWebProtectionRecord(id: number) {
    return records.getWebProtectionRecord(this.pool, id);
  }
  listWebProtectionRecords(organizationId?: number) {
    return records.listWebProtectionRecords(this.pool, organizationId);
  }
  pageWebProtectionRecords(scope: number | null, query: WebProtectionListQuery) {
    return inTransaction(this.pool, (client) => records.pageWebProtectionRecords(client, scope, query), SNAPSHOT);
  }
  updateWebProtectionRecord(scope: number | null, id: number, patch: WebProtectionPatch) {
    return inTransaction(this.pool, (client) => records.updateWebProtectionRecord(client, scope, id, patch));
  }
  deleteWebProtectionRecord(scope: number | null, id: number) {
    return inTransaction(this.pool, (client) => records.deleteWebProtectionRecord(client, scope, id));
  }

  insertDevice(device: ProtectionDevice) {
    return inTransaction(this.pool, (client) => records.insertDevice(client, device));
  }
  listDevices(query: DeviceListQuery) {
    return inTransaction(this.pool, (client) => records.listDevices(client, query), SNAPSHOT);
  }
  deviceOrganization(id: number) {
    return records.deviceOrganization(this.pool, id);
  }
  listDeviceIds() {
    return records.listDeviceIds(this.pool);
  }

  async insertTraffic(entry: NewTrafficEntry) {
    return (await insertTrafficRows(this.pool, [entry]))[0]!;
  }
  async appendTraffic(entries: readonly NewTrafficEntry[]) {
    await insertTrafficRows(this.pool, entries, false);
  }
  /** Many entries at once (test and bench set-up): see bulkInsertTraffic. */
  async bulkInsertTraffic(entries: Iterable<NewTrafficEntry>): Promise<number> {
    const n = await inTransaction(this.pool, (client) => bulkInsertTraffic(client, entries));
    await this.pool.query('ANALYZE traffic');
    return n;
  }
  listTraffic(filter: TrafficFilter, order: TrafficOrder, page: { limit: number; offset: number }) {
    return inTransaction(this.pool, (client) => listTraffic(client, filter, order, page, this.searchSample), SNAPSHOT);
  }
  exportChunks(filter: TrafficFilter, order: TrafficOrder, format: ExportFormat) {
    return exportTraffic(this.exportPool, filter, order, format, this.searchSample);
  }

  seedDemo(sizes: Partial<SeedSizes>) {
    return seedDemo(this.pool, sizes);
  }

  async close() {
    await Promise.all([this.pool.end(), this.exportPool.end()]);
  }
}

export interface OpenPostgresOptions {
  log: (line: string) => void;
  /** The error a bad setting becomes (one line naming V1_DATABASE). */
  settingError: (message: string) => Error;
}

/**
 * Connects (checking the URL, the server and the credentials before anything else), migrates
 * the schema, and returns the store. A failure is one line naming V1_DATABASE, never the password.
 */
export async function openPostgresStore(database: string, { log, settingError }: OpenPostgresOptions): Promise<PostgresStore> {
  const url = parseDatabaseUrl(database);
  if (typeof url === 'string') throw settingError(url);
  const pool = createPool(url, POOL_SIZE);
  // An export's transaction stays open while a slow client reads: no idle-in-transaction limit.
  const exportPool = createPool(url, EXPORT_POOL_SIZE, { idle_in_transaction_session_timeout: 0 });
  // A connection that fails while idle in the pool is dropped by the pool; without a listener the
  // error would end the process.
  const onIdleError = (error: Error) => log(`v1: a PostgreSQL connection failed: ${describeConnectError(error, url)}`);
  pool.on('error', onIdleError);
  exportPool.on('error', onIdleError);
  const store = new PostgresStore(pool, exportPool);
  try {
    try {
      await pool.query('SELECT 1');
    } catch (error) {
      throw settingError(describeConnectError(error, url));
    }
    let applied: string[];
    try {
      applied = await migrate(pool);
    } catch (error) {
      // A missing privilege, a server without pg_trgm: about the database the setting names.
      throw settingError(`cannot migrate the schema: ${describeConnectError(error, url)}`);
    }
    if (applied.length > 0) log(`v1: migrated the PostgreSQL schema: ${applied.join(', ')}`);
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  return store;
}
