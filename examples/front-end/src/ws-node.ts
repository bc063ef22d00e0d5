// graphql-ws from Node 20, which has no global WebSocket (Node 22 has): hand it the `ws` package's.
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

export function createNodeWsClient(url = 'ws://localhost:4000/graphql', key = 'demo-admin-key') {
  return createClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams: { 'x-service-token': key },
    // Retried: a gateway restart (1012) or a lost connection; up to 10 times, backing off.
    retryAttempts: 10,
  });
}
