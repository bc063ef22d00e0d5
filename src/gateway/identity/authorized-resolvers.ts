// The resolver map behind identity's checks, put in place once when the schema is built: every
// field with `@requiresScopes` or an organization argument is guarded (scopes.ts), and every
// mutation writes its audit line (audit.ts). Callers with an API key pass the guard untouched.
import { GraphQLScalarType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { audited } from './audit.ts';
import { guarded, requiredScopesOf } from './scopes.ts';

type AnyResolver = GraphQLFieldResolver<unknown, any, any>;

export function authorized<TResolvers extends Record<string, unknown>>(resolvers: TResolvers, schema: GraphQLSchema): TResolvers {
  const required = requiredScopesOf(schema);
  const mutationType = schema.getMutationType()?.name;
  const entries = Object.entries(resolvers).map(([typeName, fields]) => {
    if (fields instanceof GraphQLScalarType || fields === null || typeof fields !== 'object') return [typeName, fields];
    const type = schema.getType(typeName);
    const guardedFields = Object.entries(fields as Record<string, unknown>).map(([name, field]) => {
      if (name.startsWith('__')) return [name, field];
      const scopes = required.get(`${typeName}.${name}`);
      const takesOrganization = type !== undefined && 'getFields' in type && (type.getFields() as Record<string, { args?: readonly { name: string }[] }>)[name]?.args?.some((arg) => ['organizationId', 'filter', 'input'].includes(arg.name));
      const needsGuard = scopes !== undefined || takesOrganization === true;
      if (typeof field === 'function') {
        let resolve = field as AnyResolver;
        if (needsGuard) resolve = guarded(resolve, scopes);
        if (typeName === mutationType) resolve = audited(name, resolve);
        return [name, resolve];
      }
      // A subscription field: its source is what is guarded.
      if (needsGuard && field && typeof field === 'object' && typeof (field as { subscribe?: unknown }).subscribe === 'function') {
        const { subscribe } = field as { subscribe: AnyResolver };
        return [name, { ...field, subscribe: guarded(subscribe, scopes) }];
      }
      return [name, field];
    });
    for (const [name] of required) {
      const [owner, fieldName] = name.split('.') as [string, string];
      if (owner === typeName && !(fieldName in (fields as object))) {
        throw new Error(`${name} has @requiresScopes but no resolver of its own to check it in`);
      }
    }
    return [typeName, Object.fromEntries(guardedFields)];
  });
  return Object.fromEntries(entries) as TResolvers;
}
