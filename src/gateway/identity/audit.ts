// The audit trail of signed-in users' changes: each mutation field writes one `audit` log line,
// whatever its outcome: who (`sub`; an API key caller has none), for which organization, which
// operation on which records, and how it ended (`OK`, the error's code, or `UNKNOWN` when the
// upstream may or may not have applied it). Nothing else of the token is written.
import type { GraphQLFieldResolver } from 'graphql';
import type { Logger } from 'pino';
import { GatewayError, unwrapResolverError } from '../errors.ts';
import type { Caller } from './caller.ts';

export interface AuditEntry {
  operation: string;
  targets: Record<string, string>;
  outcome: string;
}

/** Where a request's mutations are written: bound to its caller and request id. */
export type AuditLog = (entry: AuditEntry) => void;

export function auditLog(logger: Logger, requestId: string, caller: Caller): AuditLog {
  return ({ operation, targets, outcome }) => {
    logger.info(
      {
        requestId,
        sub: caller.user?.sub ?? null,
        organization: caller.user ? (caller.user.admin && caller.user.organizationId === null ? '*' : caller.user.organizationId) : null,
        credential: caller.user ? 'token' : 'key',
        operation,
        targets,
        outcome,
      },
      'audit',
    );
  };
}

const TARGET_ARGUMENTS = ['id', 'organizationId', 'deviceId'];

function targetsOf(args: Record<string, unknown>): Record<string, string> {
  const targets: Record<string, string> = {};
  for (const name of TARGET_ARGUMENTS) {
    const value = args[name];
    if (typeof value === 'string' || typeof value === 'number') targets[name] = String(value);
  }
  return targets;
}

function outcomeOf(error: unknown): string {
  const original = unwrapResolverError(error);
  if (original instanceof GatewayError) return original.extensions.outcome === 'UNKNOWN' ? 'UNKNOWN' : original.code;
  return 'INTERNAL_SERVER_ERROR';
}

/** A mutation's resolver that writes its audit line once it has settled. */
export function audited<TSource, TContext extends { audit?: AuditLog }, TArgs>(
  operation: string,
  resolve: GraphQLFieldResolver<TSource, TContext, TArgs>,
): GraphQLFieldResolver<TSource, TContext, TArgs> {
  const audit: GraphQLFieldResolver<TSource, TContext, TArgs> = async (source, args, context, info) => {
    const targets = targetsOf(args as Record<string, unknown>);
    try {
      const result = await resolve(source, args, context, info);
      // A create answers with the new record's id: the record it made.
      const created = (result as { id?: unknown } | null | undefined)?.id;
      if (targets.id === undefined && (typeof created === 'string' || typeof created === 'number')) targets.id = String(created);
      context.audit?.({ operation, targets, outcome: 'OK' });
      return result;
    } catch (error) {
      context.audit?.({ operation, targets, outcome: outcomeOf(error) });
      throw error;
    }
  };
  return Object.defineProperty(audit, 'name', { value: resolve.name });
}
