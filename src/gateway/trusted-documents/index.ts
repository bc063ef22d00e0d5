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

export function trustedDocumentsFor(settings: TrustedDocumentsSettings, logger: Logger, store?: TrustedDocumentStore): ApplyTrusted | undefined {
  if (settings.manifest === undefined) return undefined;
  return trustedDocuments({ store: store ?? new MemoryTrustedDocuments(loadManifest(settings.manifest)), mode: settings.mode, logger });
}

export { applyToRequest } from './http.ts';
