// Trusted documents over plain fetch: send the document's id (`sha256:<hex>`, the manifest's key)
// and the variables, never the text.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';

export async function runTrusted<TResult, TVariables>(
  document: TypedDocumentNode<TResult, TVariables>,
  variables: TVariables,
  url = 'http://localhost:4000/graphql',
  key = 'demo-admin-key',
): Promise<TResult> {
  const documentId = (document as { __meta__?: { hash?: string } }).__meta__?.hash;
  if (!documentId) throw new Error('not a persisted document: run codegen with persistedDocuments');
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': key },
    body: JSON.stringify({ documentId, variables }),
  });
  const body = (await response.json()) as { data?: TResult; errors?: { message: string }[] };
  if (!body.data) throw new Error(body.errors?.[0]?.message ?? `HTTP ${response.status}`);
  return body.data;
}
