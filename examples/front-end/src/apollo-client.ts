// Apollo Client 4 for the gateway: queries and mutations over HTTP, subscriptions over graphql-ws
// on the same path. The key travels as a header over HTTP and in `connection_init` over WebSocket.
import { ApolloClient, HttpLink, InMemoryCache, split } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { createClient } from 'graphql-ws';

export function createApolloClient(url = 'http://localhost:4000/graphql', key = 'demo-admin-key') {
  const http = new HttpLink({ uri: url, headers: { 'x-service-token': key } });
  const ws = new GraphQLWsLink(createClient({ url: url.replace(/^http/, 'ws'), connectionParams: { 'x-service-token': key } }));
  // A document's main definition may be a fragment: only an operation has an `operation`.
  const isSubscription = ({ query }: { query: Parameters<typeof getMainDefinition>[0] }) => {
    const definition = getMainDefinition(query);
    return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
  };
  return new ApolloClient({
    link: split(isSubscription, ws, http),
    cache: new InMemoryCache(), // no typePolicies: every object with an identity has a globally unique `id`
  });
}
