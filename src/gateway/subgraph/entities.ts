// How a router's representations become the gateway's records (`_entities`): each through the same
// per-request loaders as the fields that find it, so that all the representations of one request
// share their upstream calls as the lookups of one operation do: devices one search of the
// id-ordered list (pages shared), frameworks one list call per organization.
import type { GraphQLSchema } from 'graphql';
import type { GatewayContext } from '../context.ts';
import { badUserInput, ErrorCode, GatewayError, unwrapResolverError } from '../errors.ts';
import { findDevice } from '../domains/protection-devices/resolvers.ts';
import { findFramework } from '../domains/security-frameworks/resolvers.ts';
import { isPositiveIntegerId } from '../domains/common/arguments.ts';

type Representation = Record<string, unknown>;

/** A key field of a representation, as its ID's text. */
function keyField(representation: Representation, field: string): string {
  const value = representation[field];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  throw badUserInput(`A ${String(representation['__typename'])} representation needs its key field "${field}" as an ID.`, 'representations');
}

/** What the key may not see is unknown to it: null in its place, as for a device of another organization. */
function isForbidden(error: unknown): boolean {
  const original = unwrapResolverError(error);
  return original instanceof GatewayError && original.code === ErrorCode.FORBIDDEN;
}

/** `__resolveReference` of each resolvable entity: the record, or null when the key cannot find it. */
export const entityResolvers = {
  ProtectionDevice: {
    // Async, as every one here: a bad representation fails its own place in the list, not the list.
    async __resolveReference(representation: Representation, { loaders }: GatewayContext) {
      return findDevice(loaders, keyField(representation, 'id'), 'representations');
    },
  },
  SecurityFramework: {
    async __resolveReference(representation: Representation, { loaders }: GatewayContext) {
      const organizationId = keyField(representation, 'organizationId');
      const id = keyField(representation, 'id');
      if (!isPositiveIntegerId(organizationId)) return null;
      try {
        return await findFramework((organization) => loaders.frameworksByOrganization.load(organization), organizationId, id);
      } catch (error) {
        if (isForbidden(error)) return null;
        throw error;
      }
    },
  },
};

const RESOLVABLE = new Set(Object.keys(entityResolvers));

/**
 * `_entities` answering a representation of a type this subgraph cannot resolve (an organization,
 * an unknown type, not an object at all) with a BAD_USER_INPUT in its place. The library would
 * fail the whole list for one of them, and its error would be masked as a gateway bug.
 *
 * The list is answered once every entity has settled, each failure as the error in its place:
 * given a list of promises some of which reject, graphql-jit (0.8.9) can answer a list of another
 * length than the one it was given, and a router pairs entities with representations by position.
 */
export function guardEntities(schema: GraphQLSchema): void {
  const field = schema.getQueryType()?.getFields()['_entities'];
  const resolve = field?.resolve;
  if (field === undefined || resolve === undefined) throw new Error('the subgraph schema has no _entities resolver');
  field.resolve = async (source, args: { representations: unknown[] }, context, info) => {
    const resolvable = args.representations.filter(isResolvable);
    let resolved: unknown[] = [];
    if (resolvable.length > 0) {
      try {
        resolved = resolve(source, { representations: resolvable }, context, info) as unknown[];
      } catch (error) {
        resolved = resolvable.map(() => Promise.reject(error));
      }
    }
    let next = 0;
    const settled = await Promise.allSettled(
      args.representations.map((representation) =>
        isResolvable(representation)
          ? resolved[next++]
          : Promise.reject(badUserInput(`This subgraph resolves only ${[...RESOLVABLE].join(' and ')} representations, by their keys.`, 'representations')),
      ),
    );
    return settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason))));
  };
}

function isResolvable(representation: unknown): representation is Representation {
  return typeof representation === 'object' && representation !== null && RESOLVABLE.has(String((representation as Representation)['__typename']));
}
