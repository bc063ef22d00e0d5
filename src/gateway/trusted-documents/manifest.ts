// The trusted documents manifest: the JSON object of hash to document that graphql-codegen's
// client preset writes with `persistedDocuments: true` (persisted-documents.json). Its keys are
// `sha256:<hex>` (the preset's default) or the bare hex; each must be the SHA-256 of its document,
// or the start stops with one line naming TRUSTED_DOCUMENTS.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export class ManifestError extends Error {
  override name = 'ConfigError';
}

const HASH = /^(?:sha256:)?([0-9a-f]{64})$/;

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The hex hash a client names a document by (`sha256:<hex>` or `<hex>`), or undefined. */
export function documentHash(id: string): string | undefined {
  return HASH.exec(id)?.[1];
}

/** The manifest's documents by their hex SHA-256. Throws a one-line ManifestError. */
export function loadManifest(path: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ManifestError(`TRUSTED_DOCUMENTS: cannot read "${path}" (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    throw new ManifestError(`TRUSTED_DOCUMENTS: "${path}" is not JSON`);
  }
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) {
    throw new ManifestError(`TRUSTED_DOCUMENTS: "${path}" is not a JSON object of hash to document (graphql-codegen's persisted-documents.json)`);
  }
  const documents = new Map<string, string>();
  for (const [key, document] of Object.entries(manifest)) {
    const hash = documentHash(key);
    if (hash === undefined) throw new ManifestError(`TRUSTED_DOCUMENTS: "${key.slice(0, 80)}" is not a SHA-256 hash (sha256:<64 hex digits>)`);
    if (typeof document !== 'string') throw new ManifestError(`TRUSTED_DOCUMENTS: the document of ${key.slice(0, 80)} is not a string`);
    if (sha256(document) !== hash) throw new ManifestError(`TRUSTED_DOCUMENTS: ${key.slice(0, 80)} is not the SHA-256 of its document`);
    documents.set(hash, document);
  }
  return documents;
}

/** Where trusted documents are looked up: a store shared by replicas can take this one's place. */
export interface TrustedDocumentStore {
  get(hash: string): Promise<string | undefined>;
}

export class MemoryTrustedDocuments implements TrustedDocumentStore {
  constructor(private readonly documents: ReadonlyMap<string, string>) {}

  async get(hash: string): Promise<string | undefined> {
    return this.documents.get(hash);
  }

  entries(): Iterable<[string, string]> {
    return this.documents.entries();
  }
}
