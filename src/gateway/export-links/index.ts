// Export links as the gateway's configuration asks for them (EXPORT_LINK_TTL_S): minted by a
// domain's mutation, downloaded at `/exports/<token>` (download.ts). Kept in this process's memory,
// or, with REDIS_URL, sealed in Redis so that any replica serves a link another minted
// (redis-links.ts), falling back to this process's memory while Redis is unreachable.
import type { SharedRedis } from '../shared-state/redis.ts';
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

export { exportRoute } from './download.ts';
export type { ExportFormat, ExportLink, ExportLinkStore } from './links.ts';
export type { ExportedEntry, WindowPages } from './window-file.ts';
