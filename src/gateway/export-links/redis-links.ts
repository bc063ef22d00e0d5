// Export links shared by every replica: minted on one, downloaded from any. Redis never holds the
// token nor anything readable: a link is kept under the SHA-256 of its token, sealed (AES-256-GCM)
// with a key derived from the token itself (HKDF). Only the holder of the link can name the record
// and open it; whoever reads Redis learns neither the API key nor the device. No shared secret to
// distribute or rotate: the token, 256 random bits, is the secret. The record expires with the link.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { localStore } from '../shared-state/local-state.ts';
import type { SharedRedis } from '../shared-state/redis.ts';
import { keyHash } from '../key-hash.ts';
import { DEFAULT_LINKS_PER_KEY, MemoryExportLinks, type ExportLink, type ExportLinkStore } from './links.ts';

const PREFIX = 'gw:export:';
/** Each key's links, by expiry: the record names (hashes of tokens, nothing readable) under the key's hash. */
const OWNER_PREFIX = 'gw:export-owner:';

/**
 * Adds a link to its key's set and drops what is past the key's quota, in one step shared by every
 * replica: expired links go first, then the key's oldest. Returns nothing; the dropped records are
 * deleted here. KEYS[1] the key's set, ARGV: now, the link's expiry, its record name, the quota,
 * the set's lifetime in ms.
 */
const ADD_WITHIN_QUOTA = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if over > 0 then
  local dropped = redis.call('ZRANGE', KEYS[1], 0, over - 1)
  for _, record in ipairs(dropped) do redis.call('DEL', record) end
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, over - 1)
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return over
`;
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

/**
 * The links minted while Redis is unreachable, with each key's quota: this process's, or, for the
 * workers of GATEWAY_WORKERS, their primary's (a link minted on one downloads on every other).
 */
export const localLinks = (linksPerKey = DEFAULT_LINKS_PER_KEY) => localStore<ExportLinkStore>('export-links', ['put', 'get'], () => new MemoryExportLinks(linksPerKey));

export class RedisExportLinks implements ExportLinkStore {
  /** Links minted while Redis was unreachable: they work on this replica (on each of its workers). */
  readonly #local: ExportLinkStore;

  constructor(
    private readonly redis: SharedRedis,
    private readonly linksPerKey = DEFAULT_LINKS_PER_KEY,
  ) {
    this.#local = redis.local.of(localLinks(linksPerKey));
  }

  async put(token: string, link: ExportLink): Promise<void> {
    const now = Date.now();
    const ttlMs = link.expiresAt - now;
    if (ttlMs <= 0) return;
    const record = recordKey(token);
    const stored = await this.redis.run(
      async (client) => {
        if ((await client.set(record, seal(token, link), 'PX', ttlMs)) !== 'OK') return false;
        await client.eval(ADD_WITHIN_QUOTA, 1, OWNER_PREFIX + keyHash(link.apiKey), now, link.expiresAt, record, this.linksPerKey, ttlMs);
        return true;
      },
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
