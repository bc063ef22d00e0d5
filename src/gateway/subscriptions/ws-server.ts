// graphql-ws on `ws`, as graphql-ws's own `useServer` wires it (its `makeServer`, the documented
// way to bring a transport of one's own), with one difference: what goes wrong on a socket (a
// frame over the size limit, a client that breaks the protocol, a handler that throws) is one JSON
// log line, never a stack trace written to stderr beside the logs (`useServer` uses console.error).
import type { IncomingMessage } from 'node:http';
import { CloseCode, handleProtocols, makeServer, type ServerOptions } from 'graphql-ws';
import type { Logger } from 'pino';
import type { WebSocket, WebSocketServer } from 'ws';

/** What each connection's handlers see in `ctx.extra`, as with `useServer`. */
export interface WsExtra {
  readonly socket: WebSocket;
  readonly request: IncomingMessage;
}

/** How often an idle connection is pinged; a client that does not answer in as long is cut. */
const KEEP_ALIVE_MS = 12_000;

function reasonOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
}

export function serveGraphQLWs<P extends Record<string, unknown>>(options: ServerOptions<P, WsExtra>, wsServer: WebSocketServer, logger: Logger): { dispose(): Promise<void> } {
  const server = makeServer(options);
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
