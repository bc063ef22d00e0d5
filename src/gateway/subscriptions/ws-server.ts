// graphql-ws on `ws`, as graphql-ws's own `useServer` wires it (its `makeServer`, the documented
// way to bring a transport of one's own), with one difference: what goes wrong on a socket (a
// frame over the size limit, a client that breaks the protocol, a handler that throws) is one JSON
// log line, never a stack trace written to stderr beside the logs (`useServer` uses console.error);
// and the wait for `connection_init` is the gateway's own (see INIT_WAIT_MS).
import type { IncomingMessage } from 'node:http';
import { CloseCode, handleProtocols, makeServer, MessageType, type ServerOptions } from 'graphql-ws';
import type { Logger } from 'pino';
import type { WebSocket, WebSocketServer } from 'ws';

/** What each connection's handlers see in `ctx.extra`, as with `useServer`. */
export interface WsExtra {
  readonly socket: WebSocket;
  readonly request: IncomingMessage;
}

/** How often an idle connection is pinged; a client that does not answer in as long is cut. */
const KEEP_ALIVE_MS = 12_000;

/**
 * How long a client has after its socket opens to send `connection_init` (graphql-ws's default):
 * a socket that says nothing is closed with 4408. graphql-ws's own timer stops waiting once the
 * message is handled (the key's check, however long, is not timed), but after a stall of the
 * gateway's event loop its timer runs before the socket's waiting bytes are read, and a client that
 * sent in time was closed. Here the time the gateway itself lost is given back, and the decision
 * waits for what the socket already holds to be read.
 */
const INIT_WAIT_MS = 3_000;
/** A timer this much later than due means the event loop stalled. */
const LATE_TIMER_MS = 200;

/** Whether a message is `connection_init` (a client may ping first; that does not count). */
function isInit(data: unknown): boolean {
  try {
    return (JSON.parse(String(data)) as { type?: unknown } | null)?.type === MessageType.ConnectionInit;
  } catch {
    return false;
  }
}

function reasonOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
}

export function serveGraphQLWs<P extends Record<string, unknown>>(options: ServerOptions<P, WsExtra>, wsServer: WebSocketServer, logger: Logger): { dispose(): Promise<void> } {
  const server = makeServer({ ...options, connectionInitWaitTimeout: 0 });
  wsServer.options.handleProtocols = handleProtocols;
  wsServer.on('error', (error) => logger.error({ reason: reasonOf(error) }, 'websocket server error'));
  wsServer.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    socket.once('error', (error: Error & { code?: string }) => {
      // `ws` closes the socket itself (1009 for a frame over the limit, 1002 for a protocol error).
      logger.warn({ code: error.code ?? null, reason: reasonOf(error) }, 'websocket connection error');
      if (socket.readyState === socket.OPEN) socket.close(CloseCode.InternalServerError, 'Internal server error');
    });
    let pongWait: NodeJS.Timeout | undefined;
    const ping = setInterval(() => {
      if (socket.readyState !== socket.OPEN) return;
      pongWait = setTimeout(() => socket.terminate(), KEEP_ALIVE_MS);
      socket.once('pong', () => {
        clearTimeout(pongWait);
        pongWait = undefined;
      });
      socket.ping();
    }, KEEP_ALIVE_MS);
    let initSent = false;
    const onInit = (data: unknown) => {
      initSent = isInit(data);
      if (initSent) socket.off('message', onInit);
    };
    socket.on('message', onInit);
    let initWait: NodeJS.Timeout | undefined;
    const awaitInit = (ms: number) => {
      const due = performance.now() + ms;
      initWait = setTimeout(() => {
        // A timer that fired late: the gateway was not running, and neither was its reading of the socket.
        const late = performance.now() - due;
        if (late > LATE_TIMER_MS) return awaitInit(late);
        // Timers run before the loop reads sockets: what arrived meanwhile is read before this runs.
        setImmediate(() => {
          if (!initSent && socket.readyState === socket.OPEN) socket.close(CloseCode.ConnectionInitialisationTimeout, 'Connection initialisation timeout');
        });
      }, ms);
    };
    awaitInit(INIT_WAIT_MS);
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, (error) => (error ? reject(error) : resolve()));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', async (data) => {
            try {
              await handle(String(data));
            } catch (error) {
              logger.error({ reason: reasonOf(error) }, 'websocket message failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            }
          }),
      },
      { socket, request },
    );
    socket.once('close', (code, reason) => {
      clearTimeout(initWait);
      clearTimeout(pongWait);
      clearInterval(ping);
      void closed(code, String(reason));
    });
  });
  return {
    async dispose() {
      for (const client of wsServer.clients) client.close(1001, 'Going away');
      wsServer.removeAllListeners();
      await new Promise<void>((resolve, reject) => wsServer.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
