// How the gateway names an API key wherever it must tell keys apart without holding them: throttle
// buckets, response cache partitions, connection counts (and, in Redis, the tail's pollers, whose
// names carry a filter's search text). A SHA-256 prefix: 132 bits, enough that
// two keys never share a bucket or a cache partition, and nothing a log or a metric could give back.
import { createHash } from 'node:crypto';

export function keyHash(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('base64url').slice(0, 22);
}
