import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface DownloadOptions {
  contentType: string;
  /** The file name offered in `Content-Disposition: attachment`. */
  filename: string;
}

// Lines are gathered into chunks of about this size: one write per line would cost more in
// syscalls than the encoding itself.
const CHUNK_BYTES = 64 * 1024;

async function* batched(lines: Iterable<string> | AsyncIterable<string>): AsyncGenerator<string> {
  let pending = '';
  for await (const line of lines) {
    pending += line;
    if (pending.length >= CHUNK_BYTES) {
      yield pending;
      pending = '';
    }
  }
  if (pending !== '') yield pending;
}

/**
 * Streams a download to the client with backpressure: `lines` (each with its own line ending) is
 * pulled only as fast as the socket drains, so memory does not grow with the export. The first
 * chunk is produced before the headers go out, so a failure there still becomes an envelope; a
 * failure later cuts the connection (the truncated file cannot be mistaken for a whole one, as it
 * lacks the chunked terminator). When the client goes away the source is closed (its `finally`
 * blocks run) and the promise resolves.
 */
export async function sendDownload(
  res: ServerResponse,
  { contentType, filename }: DownloadOptions,
  lines: Iterable<string> | AsyncIterable<string>,
): Promise<void> {
  const chunks = batched(lines);
  const first = await chunks.next().catch(async (error: unknown) => {
    await chunks.return(undefined);
    throw error;
  });
  res.writeHead(200, {
    'Content-Type': contentType,
    'Content-Disposition': `attachment; filename="${filename}"`,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  async function* all(): AsyncGenerator<string> {
    if (!first.done) yield first.value;
    yield* chunks;
  }
  try {
    await pipeline(Readable.from(all(), { objectMode: false }), res);
  } catch (error) {
    if (res.destroyed && !res.writableFinished && isClientGone(error)) return;
    res.destroy();
    throw error;
  }
}

function isClientGone(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || code === 'EPIPE';
}
