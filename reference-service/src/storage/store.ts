// What the service asks of its storage, whichever database holds it: the SQLite file (the
// embedded default, sqlite-store.ts) or PostgreSQL (../postgres/store.ts). The routes, the
// authentication, the seeding and the simulator speak only to this interface, so that every
// operation answers the same on both.
import type { Control, Evidence, OrganizationRef, ProtectionDevice, SecurityFramework, TrafficLogEntry, WebProtectionRecord } from '../records.ts';
import type { DeviceListQuery } from './devices.ts';
import type { FrameworkInput } from './frameworks.ts';
import type { ApiKey, KeySource, StoredKey } from './keys.ts';
import type { ExportFormat } from './traffic-export.ts';
import type { NewTrafficEntry, TrafficFilter, TrafficOrder } from './traffic.ts';
import type { UNKNOWN_ORGANIZATION, WebProtectionInput, WebProtectionListQuery, WebProtectionPatch } from './web-protection.ts';
import type { SeedSizes } from '../seed/generate.ts';

export interface V1Store {
  /** Which database: `sqlite` or `postgres`. */
  readonly kind: 'sqlite' | 'postgres';

  findKeyByHash(keyHash: Buffer): Promise<StoredKey | undefined>;
  storeApiKey(key: string, organizationId: number | null, label: string, source?: KeySource): Promise<void>;
  /** Makes the configured keys exactly `keys`, in one transaction. */
  replaceConfiguredKeys(keys: readonly ApiKey[]): Promise<void>;

  insertOrganization(organization: { id?: number; name: string; logo: string }): Promise<number>;
  getOrganization(id: number): Promise<OrganizationRef | undefined>;
  organizationExists(id: number): Promise<boolean>;

  listFrameworks(organizationId: number): Promise<SecurityFramework[]>;
  frameworkExists(organizationId: number, id: number): Promise<boolean>;
  createFramework(organizationId: number, input: FrameworkInput): Promise<number>;
  /** One transaction: the framework after the edit, or undefined when there is no live one. */
  replaceFramework(organizationId: number, id: number, input: FrameworkInput): Promise<SecurityFramework | undefined>;
  softDeleteFramework(organizationId: number, id: number): Promise<SecurityFramework | undefined>;
  addEvidence(frameworkId: number, controlId: string, evidence: Evidence): Promise<void>;
  /** A whole framework with its evidences (seeding and test setup), in one transaction. */
  insertFramework(organizationId: number, framework: { title: string; security_frameworks: Control[] }): Promise<number>;

  insertWebProtectionRecord(input: WebProtectionInput & { id?: number }): Promise<number>;
  getWebProtectionRecord(id: number): Promise<WebProtectionRecord | undefined>;
  listWebProtectionRecords(organizationId?: number): Promise<WebProtectionRecord[]>;
  /** A page of the records in `scope` (an organization, or null for all) and their number. */
  pageWebProtectionRecords(scope: number | null, query: WebProtectionListQuery): Promise<{ total: number; data: WebProtectionRecord[] }>;
  updateWebProtectionRecord(
    scope: number | null,
    id: number,
    patch: WebProtectionPatch,
  ): Promise<WebProtectionRecord | typeof UNKNOWN_ORGANIZATION | undefined>;
  deleteWebProtectionRecord(scope: number | null, id: number): Promise<WebProtectionRecord | undefined>;

  insertDevice(device: ProtectionDevice): Promise<void>;
  listDevices(query: DeviceListQuery): Promise<{ total: number; data: ProtectionDevice[] }>;
  deviceOrganization(id: number): Promise<number | undefined>;
  listDeviceIds(): Promise<number[]>;

  /** Appends one entry and returns its id. */
  insertTraffic(entry: NewTrafficEntry): Promise<number>;
  /** Appends entries in one transaction (the simulator's batch). */
  appendTraffic(entries: readonly NewTrafficEntry[]): Promise<void>;
  /** Many entries into an empty traffic table, much faster than one by one (test and bench set-up). */
  bulkInsertTraffic(entries: Iterable<NewTrafficEntry>): Promise<number>;
  listTraffic(
    filter: TrafficFilter,
    order: TrafficOrder,
    page: { limit: number; offset: number },
  ): Promise<{ total: number; data: TrafficLogEntry[] }>;
  /**
   * The export's text in pieces of a few dozen KiB (the CSV header first), read from one
   * consistent snapshot as fast as the consumer takes them; ending the iteration early (return())
   * releases what the export holds.
   */
  exportChunks(filter: TrafficFilter, order: TrafficOrder, format: ExportFormat): AsyncGenerator<string, void, undefined>;

  /**
   * Fills an empty database with the demo data, once however many processes start at once on it,
   * and returns the demo keys it holds, with whether this call did the seeding.
   */
  seedDemo(sizes: Partial<SeedSizes>): Promise<{ keys: ApiKey[]; seeded: boolean }>;

  close(): Promise<void>;
}
