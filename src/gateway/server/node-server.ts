// The node:http server under Apollo, with its deadlines against slow or idle clients.
import { createServer, type Server } from 'node:http';
import type { GatewayConfig } from '../config.ts';
import { answerClientErrorsInJson } from '../http/client-errors.ts';

export function nodeServer(options: Pick<GatewayConfig, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>): Server {
  const httpServer = createServer({
    // Slow clients (slowloris) are cut: headers and the whole request each have a deadline,
    // checked this often (node's default, 30 s, would let a short deadline run long).
    headersTimeout: options.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(options.headersTimeoutMs / 4))),
  });
  httpServer.keepAliveTimeout = options.keepAliveTimeoutMs;
  answerClientErrorsInJson(httpServer);
  return httpServer;
}
