// The v1 operations on web protection records (rest-v1.md, operations 5–6): a partial edit and a
// delete, both by id; and the reference service's reads (extensions E1–E2).
import type { UpstreamClient } from '../../upstream/client.ts';
import type { WireList } from '../../upstream/envelope.ts';
import type { WireWebProtectionRecord } from './wire.ts';
import { webProtectionRoutes } from './routes.ts';

type Id = string | number;

/** A partial edit: only the fields given are changed. */
export interface WebProtectionRecordPatch {
  organization?: number;
  fqdn?: string;
  email?: string;
  endpoint?: string;
  services?: string[];
}

export function updateWebProtectionRecord(client: UpstreamClient, id: Id, body: WebProtectionRecordPatch): Promise<WireWebProtectionRecord> {
  return client.call(webProtectionRoutes.updateWebProtectionRecord, { params: { id: String(id) }, body });
}

export function deleteWebProtectionRecord(client: UpstreamClient, id: Id): Promise<WireWebProtectionRecord> {
  return client.call(webProtectionRoutes.deleteWebProtectionRecord, { params: { id: String(id) } });
}

export function listWebProtectionRecords(client: UpstreamClient, limit: number, offset: number): Promise<WireList<WireWebProtectionRecord>> {
  return client.call(webProtectionRoutes.listWebProtectionRecords, { query: new URLSearchParams({ limit: String(limit), offset: String(offset) }) });
}

export function getWebProtectionRecord(client: UpstreamClient, id: Id): Promise<WireWebProtectionRecord> {
  return client.call(webProtectionRoutes.getWebProtectionRecord, { params: { id: String(id) } });
}
