// urql for the gateway. urql sends queries as GET by default, with no header that Apollo's CSRF
// prevention accepts, so the gateway refuses them: `preferGetMethod: false` sends every operation
// as a JSON POST (or keep GET and add `apollo-require-preflight: true` to the headers).
import { Client, cacheExchange, fetchExchange, subscriptionExchange } from '@urql/core';
import { createClient as createWsClient } from 'graphql-ws';

export function createUrqlClient(url = 'http://localhost:4000/graphql', key = 'demo-admin-key') {
  const ws = createWsClient({ url: url.replace(/^http/, 'ws'), connectionParams: { 'x-service-token': key } });
  return new Client({
    url,
    preferGetMethod: false,
    fetchOptions: { headers: { 'x-service-token': key } },
    exchanges: [
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query ?? '' };
          return { subscribe: (sink) => ({ unsubscribe: ws.subscribe(input, sink) }) };
        },
      }),
    ],
  });
}
