// Identity on the HTTP path: who a GraphQL request is for, decided from its headers before the
// gateway reads anything else of it, and what its context takes from that.
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { auditLog, type AuditLog } from './audit.ts';
import type { Caller } from './caller.ts';
import { credentialOfHeaders } from './credential.ts';
import type { Identity } from './index.ts';

export type RequestIdentity =
  | { ok: true; caller: Caller | undefined }
  | { ok: false; status: number; answer: { errors: { message: string; extensions: { code: string } }[] }; headers: Record<string, string> };

/**
 * The caller of `req`, or the answer refusing it. A browser's GET for the landing page is the one
 * request that needs no credential (a navigation asks for text/html first; Apollo answers it with
 * the page, never an operation): its caller is undefined.
 */
export async function requestIdentity(
  identity: Identity,
  req: IncomingMessage,
  landingPage: boolean,
  /** With tracing on: the request's span, which gets the user's `sub` (and nothing else of the token). */
  trace?: { identify(sub: string): void },
): Promise<RequestIdentity> {
  if (landingPage && req.method === 'GET' && /^\s*text\/html\b/i.test(req.headers.accept ?? '')) return { ok: true, caller: undefined };
  const authentication = await identity.authenticate(credentialOfHeaders(req.headers));
  if (authentication.ok && authentication.caller.user) trace?.identify(authentication.caller.user.sub);
  if (authentication.ok) return { ok: true, caller: authentication.caller };
  const { status, code, message, headers } = authentication.refusal;
  return { ok: false, status, answer: { errors: [{ message, extensions: { code } }] }, headers };
}

/** What a request's context takes of its caller: the key it acts with, who it is, where its mutations are audited. */
export function contextIdentity(
  identity: Identity,
  logger: Logger,
  requestId: string,
  caller: Caller | undefined,
): { apiKey: string | null; caller?: Caller; audit?: AuditLog } {
  if (caller === undefined) return { apiKey: null };
  // Audit lines are a feature of signed-in users: in `key` mode the gateway logs as it always has.
  return { apiKey: caller.apiKey, caller, ...(identity.mode === 'key' ? {} : { audit: auditLog(logger, requestId, caller) }) };
}
