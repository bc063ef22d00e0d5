// SUBGRAPH_SECRET: only the router may ask for `_service` (the whole SDL, which production hides
// from introspection) and `_entities` (lookups by key that no client document needs). A request
// for either without the header carrying the secret is refused with HTTP 403 before anything runs.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { ErrorCode, GatewayError } from '../errors.ts';

export const SECRET_HEADER = 'x-subgraph-secret';
const ROUTER_FIELDS = new Set(['_service', '_entities']);

/** Whether the operation asks for a router's field at its root (through fragments too). */
export function asksRouterFields(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  if (operation.operation !== 'query') return false;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const entered = new Set<string>();
  const search = (selectionSet: SelectionSetNode): boolean =>
    selectionSet.selections.some((selection) => {
      if (selection.kind === Kind.FIELD) return ROUTER_FIELDS.has(selection.name.value);
      if (selection.kind === Kind.INLINE_FRAGMENT) return search(selection.selectionSet);
      if (entered.has(selection.name.value)) return false;
      entered.add(selection.name.value);
      const fragment = fragments.get(selection.name.value);
      return fragment !== undefined && search(fragment.selectionSet);
    });
  return search(operation.selectionSet);
}

/** Compared as digests: equal lengths for timingSafeEqual, and no time that tells the secret's length. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export function subgraphSecretPlugin<TContext extends BaseContext>(secret: string): ApolloServerPlugin<TContext> {
  const expected = digest(secret);
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operation, request }) {
          if (!operation || !asksRouterFields(document, operation)) return;
          const sent = request.http?.headers.get(SECRET_HEADER);
          if (sent !== undefined && timingSafeEqual(digest(sent), expected)) return;
          throw new GatewayError('_service and _entities answer only the supergraph router: it must send the subgraph secret in X-Subgraph-Secret.', {
            code: ErrorCode.FORBIDDEN,
            http: { status: 403 },
          });
        },
      };
    },
  };
}
