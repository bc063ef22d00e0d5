// The V1Store on one SQLite file (better-sqlite3): the embedded default. The storage functions
// beside this file are synchronous; each method here calls them, so that a request's reads and
// writes happen in one turn of the event loop, as before there was a choice of store.
import type { Control, Evidence, ProtectionDevice } from '../records.ts';
import { seedDemoOnce } from '../seed/index.ts';
import type { SeedSizes } from '../seed/generate.ts';
import { whenNotBusy } from './database.ts';
import type { Database } from './database.ts';
import { deviceOrganization, insertDevice, listDeviceIds, listDevices } from './devices.ts';
import type { DeviceListQuery } from './devices.ts';
import {
  addEvidence,
  createFramework,
  frameworkExists,
  insertFramework,
  listFrameworks,
  replaceFramework,
  softDeleteFramework,
} from './frameworks.ts';
import type { FrameworkInput } from './frameworks.ts';
import { findKeyByHash, replaceConfiguredKeys, storeApiKey } from './keys.ts';
import type { ApiKey, KeySource } from './keys.ts';
import { getOrganization, insertOrganization, organizationExists } from './organizations.ts';
import type { V1Store } from './store.ts';
import { exportChunks } from './traffic-export.ts';
import type { ExportFormat } from './traffic-export.ts';
import { insertTraffic, listTraffic } from './traffic.ts';
import { analyzeAfterBulkLoad, bulkInsertTraffic } from './traffic-bulk.ts';
import type { NewTrafficEntry, TrafficFilter, TrafficOrder } from './traffic.ts';
import {
  deleteWebProtectionRecord,
  getWebProtectionRecord,
  insertWebProtectionRecord,
  listWebProtectionRecords,
  pageWebProtectionRecords,
  updateWebProtectionRecord,
} from './web-protection.ts';
import type { WebProtectionInput, WebProtectionListQuery, WebProtectionPatch } from './web-protection.ts';

export class SqliteStore implements V1Store {
  readonly kind = 'sqlite' as const;

  constructor(readonly db: Database) {}

  async findKeyByHash(keyHash: Buffer) {
    return findKeyByHash(this.db, keyHash);
  }
  async storeApiKey(key: string, organizationId: number | null, label: string, source?: KeySource) {
    storeApiKey(this.db, key, organizationId, label, source);
  }
  async replaceConfiguredKeys(keys: readonly ApiKey[]) {
    whenNotBusy(() => replaceConfiguredKeys(this.db, keys));
  }

  async insertOrganization(organization: { id?: number; name: string; logo: string }) {
    return insertOrganization(this.db, organization);
  }
  async getOrganization(id: number) {
    return getOrganization(this.db, id);
  }
  async organizationExists(id: number) {
    return organizationExists(this.db, id);
  }

  async listFrameworks(organizationId: number) {
    return listFrameworks(this.db, organizationId);
  }
  async frameworkExists(organizationId: number, id: number) {
    return frameworkExists(this.db, organizationId, id);
  }
  async createFramework(organizationId: number, input: FrameworkInput) {
    return createFramework(this.db, organizationId, input);
  }
  async replaceFramework(organizationId: number, id: number, input: FrameworkInput) {
    return replaceFramework(this.db, organizationId, id, input);
  }
  async softDeleteFramework(organizationId: number, id: number) {
    return softDeleteFramework(this.db, organizationId, id);
  }
  async addEvidence(frameworkId: number, controlId: string, evidence: Evidence) {
    addEvidence(this.db, frameworkId, controlId, evidence);
  }
  async insertFramework(organizationId: number, framework: { title: string; security_frameworks: Control[] }) {
    return insertFramework(this.db, organizationId, framework);
  }

  async insertWebProtectionRecord(input: WebProtectionInput & { id?: number }) {
    return insertWebProtectionRecord(this.db, input);
  }
  async getWebProtectionRecord(id: number) {
    return getWebProtectionRecord(this.db, id);
  }
  async listWebProtectionRecords(organizationId?: number) {
    return listWebProtectionRecords(this.db, organizationId);
  }
  async pageWebProtectionRecords(scope: number | null, query: WebProtectionListQuery) {
    return pageWebProtectionRecords(this.db, scope, query);
  }
  async updateWebProtectionRecord(scope: number | null, id: number, patch: WebProtectionPatch) {
    return updateWebProtectionRecord(this.db, scope, id, patch);
  }
  async deleteWebProtectionRecord(scope: number | null, id: number) {
    return deleteWebProtectionRecord(this.db, scope, id);
  }

  async insertDevice(device: ProtectionDevice) {
    insertDevice(this.db, device);
  }
  async listDevices(query: DeviceListQuery) {
    return listDevices(this.db, query);
  }
  async deviceOrganization(id: number) {
    return deviceOrganization(this.db, id);
  }
  async listDeviceIds() {
    return listDeviceIds(this.db);
  }

  async insertTraffic(entry: NewTrafficEntry) {
    return insertTraffic(this.db, entry);
  }
  async appendTraffic(entries: readonly NewTrafficEntry[]) {
    this.db.transaction(() => {
      for (const entry of entries) insertTraffic(this.db, entry);
    })();
  }
  async bulkInsertTraffic(entries: Iterable<NewTrafficEntry>) {
    const n = bulkInsertTraffic(this.db, entries);
    analyzeAfterBulkLoad(this.db);
    return n;
  }
  async listTraffic(filter: TrafficFilter, order: TrafficOrder, page: { limit: number; offset: number }) {
    return listTraffic(this.db, filter, order, page);
  }
  async *exportChunks(filter: TrafficFilter, order: TrafficOrder, format: ExportFormat) {
    // The rows come synchronously from a reader of their own (see iterateTraffic); closing this
    // generator closes that reader.
    yield* exportChunks(this.db, filter, order, format);
  }

  async seedDemo(sizes: Partial<SeedSizes>) {
    return seedDemoOnce(this.db, sizes);
  }

  async close() {
    this.db.close();
  }
}
