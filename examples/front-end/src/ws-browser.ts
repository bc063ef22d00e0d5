// graphql-ws in a browser: the browser's own WebSocket, the gateway's path with ws:// or wss://.
import { createClient } from 'graphql-ws';

export function createBrowserWsClient(key: string, url = new URL('/graphql', 'ws://localhost:4000').href) {
  return createClient({ url, connectionParams: { 'x-service-token': key }, retryAttempts: 10 });
}
