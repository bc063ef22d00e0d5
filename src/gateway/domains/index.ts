// The executable schema, assembled from the domains. The resolver map
// is checked by the compiler (checked-resolvers.ts): a field that needs a resolver and lacks one
// fails `npm run typecheck`.
import { addResolversToSchema } from '@graphql-tools/schema';
import { GraphQLScalarType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { declared, scalarResolvers } from '../schema.ts';
import type { GatewayContext } from '../context.ts';
import { authorized } from '../identity/authorized-resolvers.ts';
import type { CheckedResolvers } from './checked-resolvers.ts';
import { organizationResolvers } from './common/organization.ts';
import { protectionDeviceResolvers } from './protection-devices/resolvers.ts';
import { securityFrameworkResolvers } from './security-frameworks/resolvers.ts';
import { webProtectionResolvers } from './web-protection/resolvers.ts';

const checkedResolvers = {
  ...scalarResolvers,
  ...organizationResolvers,
  ...securityFrameworkResolvers,
  ...webProtectionResolvers,
  ...protectionDeviceResolvers,
  Query: { ...securityFrameworkResolvers.Query, ...webProtectionResolvers.Query, ...protectionDeviceResolvers.Query },
  Mutation: { ...securityFrameworkResolvers.Mutation, ...webProtectionResolvers.Mutation, ...protectionDeviceResolvers.Mutation },
} satisfies CheckedResolvers;

/** The domains' resolvers behind the scope checks of `@requiresScopes` and the mutations' audit lines. */
export const resolvers = authorized(checkedResolvers, declared);

/** What may be put around every field resolver once, when the schema is built. */
export type FieldWrapper = <TSource, TContext extends GatewayContext, TArgs>(
  resolve: GraphQLFieldResolver<TSource, TContext, TArgs>,
) => GraphQLFieldResolver<TSource, TContext, TArgs>;

/** The resolver map with `wrap` around each field's resolver; scalars and subscriptions as they are. */
function wrapped(wrap: FieldWrapper): typeof resolvers {
  return Object.fromEntries(
    Object.entries(resolvers).map(([type, fields]) => {
      if (fields instanceof GraphQLScalarType) return [type, fields];
      const mapped = Object.entries(fields as Record<string, unknown>).map(([name, field]) => [
        name,
        typeof field === 'function' && !name.startsWith('__') ? wrap(field as GraphQLFieldResolver<unknown, GatewayContext>) : field,
      ]);
      return [type, Object.fromEntries(mapped)];
    }),
  ) as typeof resolvers;
}

/** The resolver map, with `wrap` around each field's resolver when one is given. */
export function domainResolvers(wrap?: FieldWrapper): typeof resolvers {
  return wrap === undefined ? resolvers : wrapped(wrap);
}

let executable: GraphQLSchema | undefined;
const wrappedExecutables = new Map<FieldWrapper, GraphQLSchema>();

/**
 * The SDL's schema (built and checked once, in schema.ts) given its resolvers, once per process:
 * in place, since a copy of the whole schema (addResolversToSchema's default) would cost every
 * start time for nothing. Nothing changes it afterwards, so every gateway in the process shares it.
 *
 * With `wrap` (the response cache's stale-field noting), a copy whose resolvers are wrapped, also
 * once per process: the plain schema keeps its resolvers, so a gateway without the wrapper pays
 * nothing for it.
 */
export function buildSchema(wrap?: FieldWrapper): GraphQLSchema {
  if (wrap !== undefined) {
    let schema = wrappedExecutables.get(wrap);
    if (schema === undefined) {
      schema = addResolversToSchema({ schema: declared, resolvers: wrapped(wrap) });
      wrappedExecutables.set(wrap, schema);
    }
    return schema;
  }
  executable ??= addResolversToSchema({ schema: declared, resolvers, updateResolversInPlace: true });
  return executable;
}
