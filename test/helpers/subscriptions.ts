// A graphql-ws client as a front end would use one (the `graphql-transport-ws` protocol over a
// real WebSocket), holding what each subscription received, for tests of the traffic tail.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

export interface Received {
  /** The ids of the entries received, in order. */
  ids: number[];
  /** Every `next` payload as it came (data and errors), in order. */
  results: unknown[];
  /** The GraphQL errors received (each with its extensions). */
  errors: { message: string; extensions?: Record<string, unknown> }[];
  completed: boolean;
  /** Settles when the subscription completes or errs. */
  ended: Promise<void>;
  /** Completes the subscription from the client. */
  stop(): void;
}

export interface TailClient {
  client: Client;
  /** The close event's code and reason, once the socket closed. */
  closed: Promise<{ code: number; reason: string }>;
  subscribe(variables: Record<string, unknown>, query?: string): Received;
  dispose(): Promise<void>;
}

export const TAIL_SUBSCRIPTION = `subscription Tail($deviceId: ID!, $filter: TrafficLogFilter, $afterId: ID) {
  trafficLogEntryAdded(deviceId: $deviceId, filter: $filter, afterId: $afterId) { id dateTime type logMessage extra }
}`;

/** `gatewayUrl` is the gateway's http(s) GraphQL URL; `params` the connection_init payload. */
export function tailClient(gatewayUrl: string, params: Record<string, unknown> | null): TailClient {
  let onClosed: (event: { code: number; reason: string }) => void = () => {};
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (onClosed = resolve));
  const client = createClient({
    url: gatewayUrl.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    ...(params === null ? {} : { connectionParams: params }),
    retryAttempts: 0,
    lazy: true,
    on: { closed: (event) => onClosed(event as { code: number; reason: string }) },
  });
  return {
    client,
    closed,
    subscribe(variables, query = TAIL_SUBSCRIPTION) {
      let settle: () => void = () => {};
      const received: Received = {
        ids: [],
        results: [],
        errors: [],
        completed: false,
        ended: new Promise<void>((resolve) => (settle = resolve)),
        stop: () => unsubscribe(),
      };
      const unsubscribe = client.subscribe(
        { query, variables },
        {
          next(result) {
            received.results.push(result);
            const entry = (result.data as { trafficLogEntryAdded?: { id: string } } | null | undefined)?.trafficLogEntryAdded;
            if (entry) received.ids.push(Number(entry.id));
            for (const error of result.errors ?? []) received.errors.push(error as Received['errors'][number]);
          },
          error(error) {
            if (Array.isArray(error)) received.errors.push(...error);
            else received.errors.push({ message: String((error as { reason?: string }).reason ?? error) });
            settle();
          },
          complete() {
            received.completed = true;
            settle();
          },
        },
      );
      return received;
    },
    dispose: () => client.dispose() as Promise<void>,
  };
}

/** Waits until `done()` holds, checking every 20 ms, for at most `timeoutMs` (then throws). */
export async function until(done: () => boolean, timeoutMs = 10_000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
