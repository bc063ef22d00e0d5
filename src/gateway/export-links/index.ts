// Export links as the gateway's configuration asks for them (EXPORT_LINK_TTL_S): minted by a
// domain's mutation, downloaded at `/exports/<token>` (download.ts). Kept in this process's memory,
// or, with REDIS_URL, sealed in Redis so that any replica serves a link another minted
// (redis-links.ts), falling back to this process's memory while Redis is unreachable.
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { SharedRedis } from '../shared-state/redis.ts';
import type { Charge } from '../throttling/plugin.ts';
import type { Route } from '../upstream/routes.ts';
import { Transport } from '../upstream/transport.ts';
import { exportRoute } from './download.ts';
import type { WindowPages } from './window-file.ts';
import { MemoryExportLinks, newToken, type ExportLink, type ExportLinkStore } from './links.ts';
import { RedisExportLinks } from './redis-links.ts';

/** The path of export downloads: `/exports/<token>`. */
export const EXPORTS_PATH = '/exports/';

export interface ExportLinks {
  readonly store: ExportLinkStore;
  /** How long a link works. */
  readonly ttlMs: number;
  /**
   * A new link standing for `link` until `ttlMs` from now (or `notAfter`, when sooner: a
   * signed-in user's token's expiry), under this gateway's origin as the client reached it
   * (`http://host:port`).
   */
  mint(origin: string, link: Omit<ExportLink, 'expiresAt'>, notAfter?: number): Promise<{ url: string; expiresAt: number }>;
}

/** `linksPerKey`: links one key holds at once; past it, its own oldest go (expired first). */
export function exportLinksFor(ttlMs: number, redis?: SharedRedis, linksPerKey?: number): ExportLinks {
  const store = redis ? new RedisExportLinks(redis, linksPerKey) : new MemoryExportLinks(linksPerKey);
  return {
    store,
    ttlMs,
    async mint(origin, link, notAfter) {
      const token = newToken();
      const expiresAt = Math.min(Date.now() + ttlMs, notAfter ?? Infinity);
      await store.put(token, { ...link, expiresAt });
      return { url: `${origin}${EXPORTS_PATH}${token}`, expiresAt };
    },
  };
}

export interface ExportDownloadsOptions {
  settings: Pick<GatewayConfig, 'upstreamUrl' | 'upstreamTimeoutMs' | 'upstreamCircuitFailures' | 'upstreamCircuitCooldownMs' | 'exports'> & { upstreamUrl: string };
  links: ExportLinkStore;
  trafficRoute: Route<unknown>;
  /** What the downloads' transport GETs when `/readyz` asks whether the upstream answers. */
  readinessProbe: string;
  metrics: GatewayMetrics;
  logger: Logger;
  charge?(apiKey: string, calls: number): Promise<Charge>;
  /** A window's pages, read on the downloads' transport (the domain knows how). */
  windowPages(transport: Transport): WindowPages;
}

/**
 * `GET /exports/<token>` with a transport of its own: a stalled or failing download holds none of
 * the connections GraphQL needs and moves none of its breaker. The pool is as large as the
 * downloads allowed at once; its breaker shows as `upstream_circuit_state{upstream="exports"}`.
 */
export function exportDownloads(options: ExportDownloadsOptions): { transport: Transport; route: ReturnType<typeof exportRoute> } {
  const { settings, metrics } = options;
  const transport = new Transport({
    baseUrl: settings.upstreamUrl,
    deadlineMs: settings.upstreamTimeoutMs,
    circuitBreaker: { failures: settings.upstreamCircuitFailures, cooldownMs: settings.upstreamCircuitCooldownMs },
    pool: { connections: settings.exports.maxConcurrent },
    readinessProbe: options.readinessProbe,
    onCircuitStateChange: (state) => metrics.setCircuitState('exports', state),
  });
  metrics.setCircuitState('exports', transport.breaker.state);
  const route = exportRoute({
    links: options.links,
    transport,
    ...settings.exports,
    ...(options.charge ? { charge: options.charge } : {}),
    trafficRoute: options.trafficRoute,
    deadlineMs: settings.upstreamTimeoutMs,
    registry: metrics.registry,
    logger: options.logger,
    windowPages: options.windowPages(transport),
  });
  return { transport, route };
}

export { exportRoute } from './download.ts';
export type { ExportFormat, ExportLink, ExportLinkStore } from './links.ts';
export type { ExportedEntry, WindowPages } from './window-file.ts';
