// What a signed-in user may ask for, decided by the gateway before the field's resolver runs, so
// before any upstream call it would make: the scopes the SDL asks of the field with Apollo's
// `@requiresScopes(scopes: [[…]])` (outer list: any of; inner: all of), and the organization
// boundary (an `organizationId` argument, or one in `filter` or `input`, naming another
// organization than the token's). A refused field is null with FORBIDDEN beside the rest of the
// data. Scope `admin` has every scope and every organization. Callers with an API key pass: the
// upstream decides what a key may do, as it always has.
import { getDirectiveValues, GraphQLObjectType, type GraphQLDirective, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { ErrorCode, GatewayError } from '../errors.ts';
import type { Caller } from './caller.ts';

export const REQUIRES_SCOPES = 'requiresScopes';

/** What the guard needs of a request's context. */
export interface AuthorizedContext {
  caller?: Caller;
}

/** The `@requiresScopes` of every field that has one, as `Type.field` → scope sets. */
export function requiredScopesOf(schema: GraphQLSchema): Map<string, string[][]> {
  const directive = schema.getDirective(REQUIRES_SCOPES) as GraphQLDirective | undefined;
  const required = new Map<string, string[][]>();
  if (directive === undefined) return required;
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || type.name.startsWith('__')) continue;
    const onType = type.astNode ? (getDirectiveValues(directive, type.astNode)?.scopes as string[][] | undefined) : undefined;
    for (const field of Object.values(type.getFields())) {
      const onField = field.astNode ? (getDirectiveValues(directive, field.astNode)?.scopes as string[][] | undefined) : undefined;
      const scopes = onField ?? onType;
      if (scopes) required.set(`${type.name}.${field.name}`, scopes);
    }
  }
  return required;
}

export function hasScopes(granted: ReadonlySet<string>, required: readonly (readonly string[])[]): boolean {
  return required.some((all) => all.every((scope) => granted.has(scope)));
}

/** The organization ids an operation's arguments name: `organizationId`, and the same inside `filter` or `input`. */
function organizationsNamed(args: Record<string, unknown>): string[] {
  const named: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === 'string' || typeof value === 'number') named.push(String(value));
  };
  add(args.organizationId);
  for (const nested of [args.filter, args.input]) {
    if (nested && typeof nested === 'object') add((nested as Record<string, unknown>).organizationId);
  }
  return named;
}

/** Why `caller` may not resolve this field, or undefined when it may. */
export function refusalFor(caller: Caller | undefined, required: string[][] | undefined, args: Record<string, unknown>): GatewayError | undefined {
  const user = caller?.user;
  if (user === undefined || user.admin) return undefined;
  if (required !== undefined && !hasScopes(user.scopes, required)) {
    const wanted = required.map((all) => all.join(' and ')).join(', or ');
    return new GatewayError(`This field needs scope ${wanted}, which the token does not carry.`, { code: ErrorCode.FORBIDDEN, requiredScopes: required });
  }
  if (organizationsNamed(args).some((id) => id !== user.organizationId)) {
    return new GatewayError('This asks for another organization’s data than the one the token names.', { code: ErrorCode.FORBIDDEN });
  }
  return undefined;
}

/** `resolve` guarded: the refusal thrown instead of running it, before it can call upstream. */
export function guarded<TSource, TContext extends AuthorizedContext, TArgs>(
  resolve: GraphQLFieldResolver<TSource, TContext, TArgs>,
  required: string[][] | undefined,
): GraphQLFieldResolver<TSource, TContext, TArgs> {
  const guard: GraphQLFieldResolver<TSource, TContext, TArgs> = (source, args, context, info) => {
    const refused = refusalFor(context.caller, required, args as Record<string, unknown>);
    if (refused) throw refused;
    return resolve(source, args, context, info);
  };
  // The resolver's own name, for stack traces and for whoever looks at the schema's resolvers.
  return Object.defineProperty(guard, 'name', { value: resolve.name });
}
