// Export links: a random token that stands for what a download needs (the key it acts with, the
// device, the filter, the order, the format) for a few minutes. The token is the only thing the
// link carries; what it stands for stays with the gateway, behind this interface, so that a store
// shared by replicas can take the in-memory one's place.
import { randomBytes } from 'node:crypto';

export type ExportFormat = 'csv' | 'ndjson';

export interface ExportLink {
  apiKey: string;
  deviceId: string;
  format: ExportFormat;
  /** v1's `order` parameter. */
  order: string;
  actions?: string[];
  search?: string;
  /**
   * A time window: its instants (RFC 3339, either may be open) and where it lay in the log in
   * ascending time, when the link was made (offsets [lower, upper)). The gateway then writes the
   * file from the log's pages (window-file.ts) instead of passing the upstream's export through.
   */
  window?: { from?: string; to?: string; lower: number; upper: number };
  /** `Date.now()` time after which the link no longer works. */
  expiresAt: number;
}

export interface ExportLinkStore {
  put(token: string, link: ExportLink): Promise<void>;
  /** The link, or undefined when the token is unknown or expired. */
  get(token: string): Promise<ExportLink | undefined>;
}

/** 32 random bytes (256 bits), URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A token as the route takes it: exactly what `newToken` makes. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Links in this process's memory, bounded: past `maxLinks` the oldest is dropped (a link is a few
 * hundred bytes; a client minting links in a loop cannot grow the heap).
 */
export class MemoryExportLinks implements ExportLinkStore {
  readonly #links = new Map<string, ExportLink>();

  constructor(private readonly maxLinks = 10_000) {}

  async put(token: string, link: ExportLink): Promise<void> {
    this.#sweep();
    while (this.#links.size >= this.maxLinks) this.#links.delete(this.#links.keys().next().value!);
    this.#links.set(token, link);
  }

  async get(token: string): Promise<ExportLink | undefined> {
    const link = this.#links.get(token);
    if (link === undefined) return undefined;
    if (link.expiresAt <= Date.now()) {
      this.#links.delete(token);
      return undefined;
    }
    return link;
  }

  /** Links are kept in the order made, so the expired ones are at the front. */
  #sweep(): void {
    const now = Date.now();
    for (const [token, link] of this.#links) {
      if (link.expiresAt > now) break;
      this.#links.delete(token);
    }
  }
}
