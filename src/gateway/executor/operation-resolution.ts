// Over HTTP a subscription cannot run: it is refused as a client's mistake, saying where it can.
// Which operation of the document to run is the client's to say: a document with several
// operations needs `operationName`, and the name must be one of them. graphql-js's own executor
// answers that with an error; behind Apollo's gateway interface the executor is called with no
// operation at all, so it is refused here first, as the client's mistake it is (HTTP 400, logged
// at info), before any work.
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { GraphQLError, Kind, type DocumentNode } from 'graphql';

function operationNames(document: DocumentNode): string[] {
  return document.definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION ? [d.name?.value ?? '(anonymous)'] : []));
}

export function operationResolutionPlugin<TContext extends BaseContext>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, request, schema }) {
          if (operation?.operation === 'subscription') {
            const where = schema.getSubscriptionType()
              ? 'Subscriptions are served over WebSocket (the graphql-transport-ws protocol of graphql-ws) at this same path, not over HTTP.'
              : 'This gateway has no subscriptions yet.';
            throw new GraphQLError(where, { extensions: { code: 'OPERATION_NOT_SUPPORTED', http: { status: 400 } } });
          }
          if (operation) return;
          const names = operationNames(document).slice(0, 20).join(', ');
          const message =
            request.operationName == null
              ? `The document holds several operations (${names}): say which to run in operationName.`
              : `The document has no operation named "${request.operationName.slice(0, 100)}"; it holds: ${names}.`;
          throw new GraphQLError(message, { extensions: { code: 'OPERATION_RESOLUTION_FAILURE', http: { status: 400 } } });
        },
      };
    },
  };
}
