// The operator's endpoints: `/healthz` (the process is up, and which build), `/version` (the
// build), `/readyz` (the upstream answers), `/metrics` (Prometheus). /metrics is open on the
// gateway's port unless METRICS_PORT moves it to a port of its own (its own small server, which
// answers nothing else) or METRICS_TOKEN asks scrapers for `Authorization: Bearer <token>`.
import { timingSafeEqual, createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { buildInfo } from '../observability/build-info.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { RedisState } from '../shared-state/redis.ts';
import type { Transport } from '../upstream/transport.ts';
import { sendJson } from './plain.ts';
import { readiness } from './readiness.ts';

export interface OperatorEndpointsOptions {
  metrics: GatewayMetrics;
  transport: Transport;
  /** The downloads' own transport: /readyz says when it is saturated or its circuit open. */
  exportTransport?: Transport;
  /** Whether Redis is reachable now (it changes while the gateway runs); undefined without REDIS_URL. */
  redisState: () => RedisState | undefined;
  /** With AUTH_MODE oidc or both: the identity provider's part of /readyz. */
  identityReadiness?: () => Promise<{ ready: boolean; identityProvider: string } | undefined>;
  host: string;
  metricsPort?: number | undefined;
  metricsToken?: string | undefined;
  logger: Logger;
}

export interface OperatorEndpoints {
  /** Answers the request when its path is one of the endpoints on the gateway's port; says whether it did. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): boolean;
  /** METRICS_PORT's port once listening (0 asks for a free one); undefined without it. */
  metricsPort: number | undefined;
  close(): Promise<void>;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Compared in constant time (over digests, so that the length says nothing either). */
function bearerMatches(req: IncomingMessage, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
}

export async function operatorEndpoints(options: OperatorEndpointsOptions): Promise<OperatorEndpoints> {
  const build = buildInfo();
  const serveMetrics = (req: IncomingMessage, res: ServerResponse) => {
    if (options.metricsToken !== undefined && !bearerMatches(req, options.metricsToken)) {
      return sendJson(res, 401, { error: 'unauthorized: /metrics asks for Authorization: Bearer <METRICS_TOKEN>' }, { 'www-authenticate': 'Bearer realm="metrics"' });
    }
    options.metrics.render().then(
      (text) => {
        res.writeHead(200, { 'content-type': options.metrics.contentType });
        res.end(text);
      },
      (error: unknown) => {
        options.logger.error({ err: error }, 'metrics failed');
        if (!res.headersSent) sendJson(res, 500, { error: 'metrics failed' });
      },
    );
  };

  let metricsServer: Server | undefined;
  if (options.metricsPort !== undefined) {
    const server = createServer((req, res) => {
      if ((req.url ?? '/').split('?')[0] === '/metrics') return serveMetrics(req, res);
      sendJson(res, 404, { error: 'not found: this port serves /metrics only' });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.metricsPort, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    metricsServer = server;
  }

  return {
    metricsPort: metricsServer ? (metricsServer.address() as AddressInfo).port : undefined,
    handle(req, res, path) {
      if (path === '/healthz') {
        sendJson(res, 200, { status: 'ok', version: build.version, commit: build.commit });
        return true;
      }
      if (path === '/version') {
        sendJson(res, 200, build);
        return true;
      }
      if (path === '/readyz') {
        readiness(options.transport, res, options.redisState(), options.identityReadiness, options.exportTransport).catch((error: unknown) => {
          options.logger.error({ err: error }, 'readiness failed');
          if (!res.headersSent) sendJson(res, 500, { status: 'unknown' });
        });
        return true;
      }
      if (path === '/metrics' && metricsServer === undefined) {
        serveMetrics(req, res);
        return true;
      }
      return false;
    },
    async close() {
      if (!metricsServer) return;
      metricsServer.closeAllConnections();
      await new Promise<void>((resolve) => metricsServer!.close(() => resolve()));
    },
  };
}
