// Export links: a random token that stands for what a download needs (the key it acts with, the
// device, the filter, the order, the format) for a few minutes. The token is the only thing the
// link carries; what it stands for stays with the gateway, behind this interface, so that a store
// shared by replicas can take the in-memory one's place.
import { randomBytes } from 'node:crypto';
import { keyHash } from '../key-hash.ts';

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

/** Links one key holds at once unless the gateway says otherwise (EXPORT_LINKS_PER_KEY). */
export const DEFAULT_LINKS_PER_KEY = 100;

/**
 * Links in this process's memory, bounded per key and in all: past `linksPerKey` a key's own
 * oldest link is dropped (its expired ones go first), so a client minting links in a loop evicts
 * only its own; past `maxLinks` in all, the oldest link of the key holding the most goes. A link
 * is a few hundred bytes: the heap cannot grow with anyone's loop.
 */
export class MemoryExportLinks implements ExportLinkStore {
  /** In the order made: with one lifetime for every link, the expired ones are at the front. */
  readonly #links = new Map<string, ExportLink>();
  /** Each key's tokens, oldest first, under the key's hash. */
  readonly #byKey = new Map<string, Set<string>>();

  constructor(
    private readonly linksPerKey = DEFAULT_LINKS_PER_KEY,
    private readonly maxLinks = 10_000,
  ) {}

  async put(token: string, link: ExportLink): Promise<void> {
    this.#sweep();
    const owner = keyHash(link.apiKey);
    const own = this.#byKey.get(owner);
    while (own !== undefined && own.size >= this.linksPerKey) this.#delete(own.values().next().value!);
    while (this.#links.size >= this.maxLinks) this.#evictFromLargest();
    this.#links.set(token, link);
    let tokens = this.#byKey.get(owner);
    if (tokens === undefined) this.#byKey.set(owner, (tokens = new Set()));
    tokens.add(token);
  }

  async get(token: string): Promise<ExportLink | undefined> {
    const link = this.#links.get(token);
    if (link === undefined) return undefined;
    if (link.expiresAt <= Date.now()) {
      this.#delete(token);
      return undefined;
    }
    return link;
  }

  #sweep(): void {
    const now = Date.now();
    for (const [token, link] of this.#links) {
      if (link.expiresAt > now) break;
      this.#delete(token);
    }
  }

  #evictFromLargest(): void {
    let largest: Set<string> | undefined;
    for (const tokens of this.#byKey.values()) if (largest === undefined || tokens.size > largest.size) largest = tokens;
    const oldest = largest?.values().next().value;
    if (oldest === undefined) return void this.#links.delete(this.#links.keys().next().value!);
    this.#delete(oldest);
  }

  #delete(token: string): void {
    const link = this.#links.get(token);
    if (link === undefined) return;
    this.#links.delete(token);
    const owner = keyHash(link.apiKey);
    const tokens = this.#byKey.get(owner);
    tokens?.delete(token);
    if (tokens?.size === 0) this.#byKey.delete(owner);
  }
}
