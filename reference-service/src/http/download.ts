import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface DownloadOptions {
  contentType: string;
  /** The file name offered in `Content-Disposition: attachment`. */
  filename: string;
}

/**
 * Streams a download to the client with backpressure: `source` (pieces of the body) is pulled
 * only as fast as the socket drains, so memory does not grow with the download. The first chunk is
 * taken before the headers go out, so a failure there still becomes an envelope; a failure later
 * cuts the connection (the truncated file cannot be mistaken for a whole one, as it lacks the
 * chunked terminator). When the client goes away the source is closed (its `finally` blocks run)
 * and the promise resolves.
 */
export async function sendDownload(
  res: ServerResponse,
  { contentType, filename }: DownloadOptions,
  source: AsyncIterator<string>,
): Promise<void> {
  // A source that throws here is finished (a generator has run its `finally` blocks): the error
  // goes to the caller, before anything is written.
  const first = await source.next();
  if (res.destroyed) {
    await source.return?.();
    return;
  }
  res.writeHead(200, {
    'Content-Type': contentType,
    'Content-Disposition': `attachment; filename="${filename}"`,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  try {
    await pipeline(Readable.from(resume(first, source), { objectMode: false }), res);
  } catch (error) {
    if (res.destroyed && !res.writableFinished && isClientGone(error)) return;
    res.destroy();
    throw error;
  }
}

/**
 * `first`, then what `source` has left. Closing it closes `source`, also before `first` is read
 * (a generator's `finally` would not run then, as it would not have started).
 */
function resume(first: IteratorResult<string>, source: AsyncIterator<string>): AsyncIterable<string> {
  let head: IteratorResult<string> | undefined = first;
  const rest: AsyncIterator<string> = {
    async next() {
      const result = head ?? (await source.next());
      head = undefined;
      return result;
    },
    async return() {
      head = undefined;
      await source.return?.();
      return { done: true, value: undefined };
    },
  };
  return { [Symbol.asyncIterator]: () => rest };
}

function isClientGone(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || code === 'EPIPE';
}
