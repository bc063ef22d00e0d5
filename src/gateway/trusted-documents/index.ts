// Trusted documents as the configuration asks for them (TRUSTED_DOCUMENTS, TRUSTED_DOCUMENTS_MODE):
// this replica's manifest, and, with REDIS_URL, what every replica's manifest shared
// (redis-documents.ts), shared again each time Redis returns.
import type { Logger } from 'pino';
import type { SharedRedis } from '../shared-state/redis.ts';
import type { ApplyTrusted } from './http.ts';
import { loadManifest, MemoryTrustedDocuments } from './manifest.ts';
import { SharedTrustedDocuments } from './redis-documents.ts';
import { trustedDocuments, type TrustedDocumentsMode } from './requests.ts';

export interface TrustedDocumentsSettings {
  /** TRUSTED_DOCUMENTS: the manifest's path; undefined: no trusted documents. */
  manifest: string | undefined;
  mode: TrustedDocumentsMode;
}

/** `redis`, REDIS_URL's connection: a store that looks beyond this replica's manifest. */
export function trustedDocumentsFor(settings: TrustedDocumentsSettings, logger: Logger, redis?: SharedRedis): ApplyTrusted | undefined {
  if (settings.manifest === undefined) return undefined;
  const own = new MemoryTrustedDocuments(loadManifest(settings.manifest));
  if (redis === undefined) return trustedDocuments({ store: own, mode: settings.mode, logger });
  const shared = new SharedTrustedDocuments(redis, own);
  void shared.publish();
  redis.whenBack(() => shared.publish());
  return trustedDocuments({ store: shared, mode: settings.mode, logger });
}

export { applyToRequest } from './http.ts';
