// Subscriptions over WebSocket: graphql-ws (the graphql-transport-ws protocol) on the gateway's
// HTTP server at the GraphQL path, beside Apollo Server, as Apollo's subscription guide sets it
// up. Each connection carries one API key (from `connection_init`); each subscription runs with a
// context of its own, like an HTTP request's, that is cancelled when the subscription ends. The
// transport knows no subscription field: the schema's resolvers are what a subscription runs.
// `graphql_ws_connections` counts the connections open.
import { randomUUID } from 'node:crypto';
import { credentialOfConnectionParams, type Authentication, type Caller } from '../identity/index.ts';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, subscribe, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import { CloseCode, type Context } from 'graphql-ws';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { WebSocketServer } from 'ws';
import { ErrorCode, GatewayError } from '../errors.ts';
import type { FormatError } from '../format-error.ts';
import { serveGraphQLWs } from './ws-server.ts';
import { checkSubscription, type OperationRules, type SubscribeRequest } from './operation-check.ts';

/** How long a shutdown waits for its sockets' closing handshakes before cutting them. */
const CLOSE_GRACE_MS = 2000;

/**
 * What a stopping gateway closes its sockets with: 1012, Service Restart (RFC 6455's registry).
 * graphql-ws clients retry it (its 4xxx codes, and most 1xxx ones, are fatal to them), so a
 * client reconnects to the next instance and, subscribing again with `afterId`, misses nothing.
 */
export const RESTART_CLOSE = { code: 1012, reason: 'Service Restart: the gateway is restarting; reconnect and resume with afterId' } as const;

/** What a subscription's context is made from: its connection's caller, its own id and signal. */
export interface SubscriptionContextInput {
  requestId: string;
  apiKey: string;
  caller: Caller;
  /** Aborted when the subscription ends. */
  signal: AbortSignal;
  origin: string;
}

export interface SubscriptionServerOptions<TContext> {
  httpServer: Server;
  path: string;
  rules: OperationRules;
  maxPayloadBytes: number;
  maxSubscriptionsPerConnection: number;
  maxConnectionsPerKey: number;
  createContext(input: SubscriptionContextInput): TContext;
  /**
   * Who a connection is for, from its `connection_init` credential (identity/), and the key the
   * gateway holds for it now (keys are rotated on SIGHUP).
   */
  identity: {
    authenticate(credential: ReturnType<typeof credentialOfConnectionParams>): Promise<Authentication>;
    current(caller: Caller): Authentication;
  };
  originOf(req: IncomingMessage): string;
  formatError: FormatError;
  logger: Logger;
  /** Where `graphql_ws_connections` is registered: the gateway's /metrics. */
  registry: Registry;
  /**
   * The gateway's admission of a document (trusted documents): the same check as over HTTP. Fills
   * in the text of a trusted document named by `documentId` or a persisted query's hash.
   */
  admitDocument?(operation: { query?: unknown; documentId?: unknown; operationName?: unknown; extensions?: unknown }): Promise<{ ok: true } | { ok: false; errors: GraphQLFormattedError[] }>;
  /**
   * Whether the upstream takes the connection's key: `false` only when it refuses it (the
   * connection is then closed with 4403); an upstream that fails says nothing of the key.
   */
  keyAccepted?(apiKey: string): Promise<boolean>;
}

export interface SubscriptionServer {
  readonly connections: number;
  /** Stops accepting and closes every socket with RESTART_CLOSE (its subscriptions end with it). */
  close(): Promise<void>;
}

interface Connection {
  id: string;
  caller: Caller;
  keyHash: string;
  /** Closes the connection when its token expires. */
  expiry?: NodeJS.Timeout;
  openedAt: number;
  subscriptions: Map<string, AbortController>;
  subscribed: number;
}

export function startSubscriptionServer<TContext>(options: SubscriptionServerOptions<TContext>): SubscriptionServer {
  const { logger } = options;
  // Upgrades are taken from the HTTP server here rather than by `ws` itself (its `server` option):
  // `ws` would also take the server's own errors (a port in use at start) as its own.
  const wsServer = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes });
  let accepting = true;
  options.httpServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!accepting || (req.url ?? '/').split('?')[0] !== options.path) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wsServer.handleUpgrade(req, socket, head, (ws) => wsServer.emit('connection', ws, req));
  });
  const connections = new Map<Context, Connection>();
  const perKey = new Map<string, number>();
  new Gauge({
    name: 'graphql_ws_connections',
    help: 'Open GraphQL WebSocket connections (acknowledged)',
    registers: [options.registry],
    collect() {
      this.set(connections.size);
    },
  });

  const format = (errors: readonly GraphQLError[]): GraphQLFormattedError[] => errors.map((error) => options.formatError(error.toJSON(), error));

  const cleanup = serveGraphQLWs<Record<string, unknown>>(
    {
      async onConnect(ctx) {
        const { socket } = ctx.extra;
        const credential = credentialOfConnectionParams(ctx.connectionParams);
        const authentication = await options.identity.authenticate(credential);
        if (!authentication.ok) {
          const { closeCode, message } = authentication.refusal;
          socket.close(
            closeCode,
            credential === null && closeCode === CloseCode.Unauthorized ? 'Unauthorized: send the API key in connection_init as x-service-token' : truncateReason(message),
          );
          return false;
        }
        const { caller } = authentication;
        // One count per key, or per signed-in user: the users of one organization share its key.
        const keyHash = caller.bucket;
        const held = perKey.get(keyHash) ?? 0;
        if (held >= options.maxConnectionsPerKey) {
          socket.close(CloseCode.Forbidden, `Forbidden: this API key holds ${held} connections, the most allowed`);
          return false;
        }
        // A key the upstream refuses is not held open: acknowledged, it would keep a socket (and
        // a place among the connections) for nothing.
        perKey.set(keyHash, held + 1);
        const release = () => {
          const left = (perKey.get(keyHash) ?? 1) - 1;
          if (left > 0) perKey.set(keyHash, left);
          else perKey.delete(keyHash);
        };
        if (!caller.user && options.keyAccepted && !(await options.keyAccepted(caller.apiKey).catch(() => true))) {
          release();
          socket.close(CloseCode.Forbidden, 'Forbidden: the upstream refuses this API key');
          return false;
        }
        const connection: Connection = { id: randomUUID(), caller, keyHash, openedAt: performance.now(), subscriptions: new Map(), subscribed: 0 };
        connections.set(ctx, connection);
        if (caller.user) {
          // The token was checked once, here; the connection lives no longer than it does.
          // (setTimeout holds at most 2^31-1 ms; a longer-lived token is re-armed on the way.)
          const arm = () => {
            const left = caller.user!.expiresAt - Date.now();
            connection.expiry = setTimeout(() => {
              if (caller.user!.expiresAt - Date.now() > 0) return arm();
              socket.close(CloseCode.Unauthorized, 'token expired');
            }, Math.max(0, Math.min(left, 2_147_483_647)));
            connection.expiry.unref();
          };
          arm();
        }
        logger.info({ connectionId: connection.id }, 'websocket connection opened');
        return true;
      },
      async onSubscribe(ctx, id, payload) {
        const connection = connections.get(ctx);
        if (!connection) return [new GatewayError('The connection is not acknowledged', { code: ErrorCode.UNAUTHENTICATED })];
        if (connection.subscriptions.size >= options.maxSubscriptionsPerConnection) {
          const message = `This connection holds ${connection.subscriptions.size} subscriptions, the most allowed (TAIL_MAX_SUBSCRIPTIONS_PER_CONNECTION); complete one or open another connection.`;
          return [new GatewayError(message, { code: ErrorCode.TOO_MANY_SUBSCRIPTIONS })];
        }
        // The key the gateway holds for this caller now: a rotated key is used from the next subscription.
        const current = options.identity.current(connection.caller);
        if (!current.ok) return [new GatewayError(current.refusal.message, { code: ErrorCode.FORBIDDEN })];
        const request = payload as SubscribeRequest & { documentId?: unknown };
        if (options.admitDocument) {
          // A client that names a trusted document sends an empty text with it.
          const operation: Parameters<NonNullable<typeof options.admitDocument>>[0] = { ...request, ...(request.query === '' ? { query: undefined } : {}) };
          const admitted = await options.admitDocument(operation);
          if (!admitted.ok) return admitted.errors.map((error) => new GraphQLError(error.message, { extensions: error.extensions ?? {} }));
          if (typeof operation.query === 'string') request.query = operation.query;
        }
        const checked = checkSubscription(options.rules, request);
        if ('errors' in checked) return checked.errors;
        const abort = new AbortController();
        connection.subscriptions.set(id, abort);
        connection.subscribed += 1;
        const contextValue = options.createContext({ requestId: `${connection.id}/${id}`, apiKey: current.caller.apiKey, caller: current.caller, signal: abort.signal, origin: options.originOf(ctx.extra.request) });
        return {
          schema: options.rules.schema,
          document: checked.document,
          operationName: request.operationName ?? undefined,
          variableValues: request.variables ?? undefined,
          contextValue,
        };
      },
      subscribe,
      onNext(_ctx, _id, _payload, _args, result: ExecutionResult) {
        return result.errors ? { ...result, errors: format(result.errors) } : undefined;
      },
      onError(_ctx, _id, _payload, errors) {
        return format(errors);
      },
      onComplete(ctx, id) {
        const connection = connections.get(ctx);
        const abort = connection?.subscriptions.get(id);
        if (!connection || !abort) return;
        connection.subscriptions.delete(id);
        abort.abort();
      },
      onClose(ctx, code) {
        const connection = connections.get(ctx);
        if (!connection) return;
        connections.delete(ctx);
        clearTimeout(connection.expiry);
        for (const abort of connection.subscriptions.values()) abort.abort();
        const held = (perKey.get(connection.keyHash) ?? 1) - 1;
        if (held > 0) perKey.set(connection.keyHash, held);
        else perKey.delete(connection.keyHash);
        logger.info(
          { connectionId: connection.id, code, subscriptions: connection.subscribed, durationMs: Math.round(performance.now() - connection.openedAt) },
          'websocket connection closed',
        );
      },
    },
    wsServer,
    logger,
  );

  return {
    get connections() {
      return connections.size;
    },
    async close() {
      accepting = false;
      // Not `complete`: a client takes that as the end of its subscription and stops. A restart
      // close makes graphql-ws reconnect, where the next instance (or this one restarted) serves.
      const closing = [...wsServer.clients].map(
        (socket) =>
          new Promise<void>((resolve) => {
            socket.once('close', () => resolve());
            socket.close(RESTART_CLOSE.code, RESTART_CLOSE.reason);
          }),
      );
      if (closing.length > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(closing), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
        clearTimeout(timer);
      }
      await cleanup.dispose();
    },
  };
}

/** A close reason is at most 123 bytes of UTF-8 (RFC 6455). */
function truncateReason(reason: string): string {
  if (Buffer.byteLength(reason) <= 123) return reason;
  let cut = reason;
  while (Buffer.byteLength(cut) > 120) cut = cut.slice(0, -1);
  return `${cut}…`;
}
