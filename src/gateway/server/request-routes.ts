// Which path answers a request on the gateway's port, in order: the operator endpoints, the
// explorers' pages, export downloads, MCP, then /graphql; anything else is a 404 in GraphQL's
// error shape. Every request gets an id (the client's X-Request-Id, or a new one) and, once the
// gateway is stopping, a 503 before anything runs.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Middleware } from '../http/cors.ts';
import type { OperatorEndpoints } from '../http/operator-endpoints.ts';
import { sendJson } from '../http/plain.ts';
import type { ShutdownGate } from '../http/shutdown-gate.ts';
import { EXPORTS_PATH } from '../export-links/index.ts';
import type { LandingRoutes } from '../landing/routes.ts';
import type { Mcp } from '../mcp/index.ts';
import { MCP_PATH } from '../mcp/settings.ts';

type Route = (req: IncomingMessage, res: ServerResponse, rest: string) => Promise<void>;

export interface RequestRoutes {
  gate: ShutdownGate;
  logger: Logger;
  operator: OperatorEndpoints;
  landing: LandingRoutes;
  corsHandler: Middleware;
  downloadExport: Route;
  mcp: Mcp | undefined;
  graphql: Route;
}

export function requestListener(routes: RequestRoutes): (req: IncomingMessage, res: ServerResponse) => void {
  const { gate, logger, operator, landing, corsHandler, downloadExport, mcp } = routes;
  return (req, res) => {
    if (!gate.admit(req, res)) return;
    const requestId = (typeof req.headers['x-request-id'] === 'string' && req.headers['x-request-id'].slice(0, 100)) || randomUUID();
    res.setHeader('x-request-id', requestId);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const fail = (error: unknown) => {
      logger.error({ err: error, requestId }, 'request failed');
      if (!res.headersSent) sendJson(res, 500, { errors: [{ message: 'Internal server error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
      else res.destroy();
    };
    if (operator.handle(req, res, path)) return;
    if (landing(req, res, path)) return;
    const withCors = (run: () => Promise<void>) => corsHandler(req, res, (error?: unknown) => (error ? fail(error) : void run().catch(fail)));
    if (path.startsWith(EXPORTS_PATH)) return withCors(() => downloadExport(req, res, path.slice(EXPORTS_PATH.length)));
    if (mcp && path === MCP_PATH) return mcp.handle(req, res, requestId, fail);
    if (mcp?.serveMetadata(req, res, path)) return;
    if (path !== '/graphql') return sendJson(res, 404, { errors: [{ message: 'Nothing is served at this path: GraphQL is at /graphql.', extensions: { code: 'NOT_FOUND' } }] });
    withCors(() => routes.graphql(req, res, requestId));
  };
}
