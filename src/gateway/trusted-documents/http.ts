// Trusted documents on an HTTP GraphQL request: each operation of a POST body (one, or a batch),
// or a GET's parameters (`documentId`, `query`, `extensions`), rewritten in place.
import type { Checked, OperationFields } from './requests.ts';

export type ApplyTrusted = (operation: OperationFields) => Promise<Checked>;

export type Applied = { ok: true; body: unknown; search: string } | Extract<Checked, { ok: false }>;

export async function applyToRequest(apply: ApplyTrusted, body: unknown, search: string): Promise<Applied> {
  if (body !== undefined) {
    for (const operation of Array.isArray(body) ? body : [body]) {
      if (operation === null || typeof operation !== 'object') continue; // Apollo refuses it itself
      const checked = await apply(operation as OperationFields);
      if (!checked.ok) return checked;
    }
    return { ok: true, body, search };
  }
  const params = new URLSearchParams(search);
  const operation: OperationFields = {};
  for (const name of ['query', 'documentId', 'operationName'] as const) {
    const value = params.get(name);
    if (value !== null) operation[name] = value;
  }
  const extensions = params.get('extensions');
  if (extensions !== null) {
    try {
      operation.extensions = JSON.parse(extensions);
    } catch {
      // Apollo answers a malformed `extensions` itself.
    }
  }
  const checked = await apply(operation);
  if (!checked.ok) return checked;
  if (typeof operation.query === 'string') params.set('query', operation.query);
  params.delete('documentId');
  const rewritten = params.toString();
  return { ok: true, body, search: rewritten === '' ? '' : `?${rewritten}` };
}
