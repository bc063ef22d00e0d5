// Export links shared by every replica: minted on one, downloaded from any. Redis never holds the
// token nor anything readable: a link is kept under the SHA-256 of its token, sealed (AES-256-GCM)
// with a key derived from the token itself (HKDF). Only the holder of the link can name the record
// and open it; whoever reads Redis learns neither the API key nor the device. No shared secret to
// distribute or rotate: the token, 256 random bits, is the secret. The record expires with the link.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { SharedRedis } from '../shared-state/redis.ts';
import { MemoryExportLinks, type ExportLink, type ExportLinkStore } from './links.ts';

const PREFIX = 'gw:export:';
const INFO = 'security-graphql-gateway export link';

function recordKey(token: string): string {
  return PREFIX + createHash('sha256').update(token).digest('base64url');
}

function sealingKey(token: string): Buffer {
  return Buffer.from(hkdfSync('sha256', token, Buffer.alloc(0), INFO, 32));
}

export function seal(token: string, link: ExportLink): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(token), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(link), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

/** The link, or undefined when the record was not sealed for this token (or was tampered with). */
export function open(token: string, record: string): ExportLink | undefined {
  try {
    const bytes = Buffer.from(record, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(token), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')) as ExportLink;
  } catch {
    return undefined;
  }
}

export class RedisExportLinks implements ExportLinkStore {
  /** Links minted while Redis was unreachable: they work on this replica. */
  readonly #local = new MemoryExportLinks();

  constructor(private readonly redis: SharedRedis) {}

  async put(token: string, link: ExportLink): Promise<void> {
    const ttlMs = link.expiresAt - Date.now();
    if (ttlMs <= 0) return;
    const stored = await this.redis.run(
      async (client) => (await client.set(recordKey(token), seal(token, link), 'PX', ttlMs)) === 'OK',
      () => false,
    );
    if (!stored) await this.#local.put(token, link);
  }

  async get(token: string): Promise<ExportLink | undefined> {
    const record = await this.redis.run(
      (client) => client.get(recordKey(token)),
      () => null,
    );
    const link = record === null ? undefined : open(token, record);
    if (link !== undefined && link.expiresAt > Date.now()) return link;
    return this.#local.get(token);
  }
}
