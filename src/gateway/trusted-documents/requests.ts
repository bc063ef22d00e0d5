// Trusted documents applied to a GraphQL request before Apollo reads it: a `documentId` (or an
// automatic persisted query's `sha256Hash` sent without text) becomes the trusted document's text;
// in `enforce` mode any other document is refused (400, PERSISTED_QUERY_NOT_ALLOWED); in `log`
// mode it runs, and its hash and operation name are logged once.
import type { GraphQLFormattedError } from 'graphql';
import type { Logger } from 'pino';
import { documentHash, sha256, type TrustedDocumentStore } from './manifest.ts';

export type TrustedDocumentsMode = 'off' | 'log' | 'enforce';

export interface TrustedDocumentsOptions {
  store: TrustedDocumentStore;
  mode: TrustedDocumentsMode;
  logger: Logger;
}

export type Checked = { ok: true } | { ok: false; status: number; errors: GraphQLFormattedError[] };

/** An operation as it comes: a POST body's object, or a GET's parameters as one. */
export interface OperationFields {
  query?: unknown;
  documentId?: unknown;
  operationName?: unknown;
  extensions?: unknown;
}

/** Distinct untrusted documents logged at most (the set would otherwise grow with every client's whim). */
const MAX_LOGGED = 10_000;

function refusal(code: string, message: string): Checked {
  return { ok: false, status: 400, errors: [{ message, extensions: { code } }] };
}

function persistedQueryHash(extensions: unknown): string | undefined {
  const persisted = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | null | undefined)?.persistedQuery;
  return typeof persisted?.sha256Hash === 'string' ? documentHash(persisted.sha256Hash) : undefined;
}

export function trustedDocuments(options: TrustedDocumentsOptions) {
  const logged = new Set<string>();

  /** Fills in `query` from a trusted document when the operation names one; checks the rest. Mutates `operation`. */
  return async function apply(operation: OperationFields): Promise<Checked> {
    if (operation.documentId !== undefined) {
      const hash = typeof operation.documentId === 'string' ? documentHash(operation.documentId) : undefined;
      const document = hash === undefined ? undefined : await options.store.get(hash);
      if (document === undefined) {
        return refusal('PERSISTED_QUERY_NOT_FOUND', 'No trusted document has this documentId: generate the client\'s persisted documents again and deploy them with the gateway (TRUSTED_DOCUMENTS).');
      }
      operation.query = document;
      delete operation.documentId;
      return { ok: true };
    }
    const apqHash = persistedQueryHash(operation.extensions);
    if (operation.query === undefined && apqHash !== undefined) {
      const document = await options.store.get(apqHash);
      if (document !== undefined) {
        operation.query = document;
        // Apollo's own check compares the bare hex with the text: a client may name it `sha256:<hex>`.
        (operation.extensions as { persistedQuery: { sha256Hash: string } }).persistedQuery.sha256Hash = apqHash;
        return { ok: true };
      }
    }
    if (options.mode === 'off' || typeof operation.query !== 'string') return { ok: true };
    const hash = sha256(operation.query);
    if ((await options.store.get(hash)) !== undefined) return { ok: true };
    if (options.mode === 'enforce') {
      return refusal(
        'PERSISTED_QUERY_NOT_ALLOWED',
        'This gateway runs trusted documents only (TRUSTED_DOCUMENTS_MODE=enforce): send the documentId of one of the client\'s persisted documents instead of the text.',
      );
    }
    if (!logged.has(hash) && logged.size < MAX_LOGGED) {
      logged.add(hash);
      const name = typeof operation.operationName === 'string' ? operation.operationName.slice(0, 100) : null;
      options.logger.warn({ document: { hash: `sha256:${hash}`, operationName: name } }, 'untrusted document run (TRUSTED_DOCUMENTS_MODE=log)');
    }
    return { ok: true };
  };
}
