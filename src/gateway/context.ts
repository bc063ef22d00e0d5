// What every resolver of one GraphQL request sees. Created per request: the key, the upstream
// client bound to it, and loaders whose caches live and die with the request.
import type { Loaders } from './loaders.ts';
import type { V1Client } from './upstream/client.ts';

export interface GatewayContext {
  requestId: string;
  /** The client's API key, or null when it sent none (upstream calls then fail UNAUTHENTICATED). */
  apiKey: string | null;
  upstream: V1Client;
  loaders: Loaders;
}
