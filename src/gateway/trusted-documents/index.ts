// Trusted documents as the configuration asks for them (TRUSTED_DOCUMENTS, TRUSTED_DOCUMENTS_MODE).
import type { Logger } from 'pino';
import type { ApplyTrusted } from './http.ts';
import { loadManifest, MemoryTrustedDocuments, type TrustedDocumentStore } from './manifest.ts';
import { trustedDocuments, type TrustedDocumentsMode } from './requests.ts';

export interface TrustedDocumentsSettings {
  /** TRUSTED_DOCUMENTS: the manifest's path; undefined: no trusted documents. */
  manifest: string | undefined;
  mode: TrustedDocumentsMode;
}

/** `share`, with replicas: a store that looks beyond this replica's manifest (shared-state/documents.ts). */
export function trustedDocumentsFor(
  settings: TrustedDocumentsSettings,
  logger: Logger,
  share?: (own: MemoryTrustedDocuments) => TrustedDocumentStore,
): ApplyTrusted | undefined {
  if (settings.manifest === undefined) return undefined;
  const own = new MemoryTrustedDocuments(loadManifest(settings.manifest));
  return trustedDocuments({ store: share ? share(own) : own, mode: settings.mode, logger });
}

export { applyToRequest } from './http.ts';
