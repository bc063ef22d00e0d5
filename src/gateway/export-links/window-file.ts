// The file of a window's export, written by the gateway in exactly the upstream export's format
// (rest-v1.md, operation 8): CSV with the header row, every text field quoted (RFC 4180, quotes
// doubled), `extra` as its JSON object, CRLF line ends; or NDJSON, one entry object a line. The
// upstream's export cannot be cut to a window (it has no date filter and ignores limit and
// offset), so the window's entries come from the log's ordinary pages (`WindowPages`, given by the
// domain that knows the log) and are written here, page by page: one page is held at a time, a
// page is read only when the client has taken the previous one, and a client that leaves stops
// the reading.
import type { ServerResponse } from 'node:http';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { stringify as stringifySync } from 'csv-stringify/sync';
import type { ExportFormat, ExportLink } from './links.ts';

/** An entry of the traffic log, as the upstream's export writes it. */
export interface ExportedEntry {
  id: number;
  date_time: string;
  type: string;
  src_ip: string;
  dest_ip: string;
  dest_port?: string | null;
  log_message: string;
  extra: Record<string, unknown>;
}

/** The window's entries in the link's order, a page at a time; reading stops when `signal` aborts. */
export type WindowPages = (link: ExportLink, signal: AbortSignal) => AsyncIterator<ExportedEntry[]>;

/** The upstream export's columns, in its order. */
const COLUMNS = ['id', 'date_time', 'type', 'src_ip', 'dest_ip', 'dest_port', 'log_message', 'extra'] as const;

/** Each page's entries as the format's rows (objects for csv-stringify, lines for NDJSON). */
function formatter(format: ExportFormat): Transform {
  if (format === 'ndjson') {
    return new Transform({
      writableObjectMode: true,
      transform(page: ExportedEntry[], _encoding, done) {
        let text = '';
        // The entry object as the upstream's JSON list and export write it: the same keys in the same order.
        for (const e of page) {
          text += `${JSON.stringify({ id: e.id, date_time: e.date_time, type: e.type, src_ip: e.src_ip, dest_ip: e.dest_ip, dest_port: e.dest_port, log_message: e.log_message, extra: e.extra })}\n`;
        }
        done(null, text);
      },
    });
  }
  return new Transform({
    objectMode: true,
    transform(page: ExportedEntry[], _encoding, done) {
      for (const e of page) this.push([e.id, e.date_time, e.type, e.src_ip, e.dest_ip, e.dest_port ?? '', e.log_message, JSON.stringify(e.extra)]);
      done();
    },
  });
}

/** The CSV header row: bare names, as the upstream writes it. */
const CSV_HEADER = stringifySync([COLUMNS as unknown as string[]], { record_delimiter: 'windows' });

/**
 * Writes the window's file to `res` (its headers already chosen by the caller, sent once the first
 * page is in). Rejects before anything is written when the first page cannot be read; after that,
 * a failure cuts the connection (the caller destroys `res`).
 */
export async function sendWindowFile(
  res: ServerResponse,
  link: ExportLink,
  pages: AsyncIterator<ExportedEntry[]>,
  headers: Record<string, string>,
  onBytes: (bytes: number) => void,
): Promise<void> {
  const first = await pages.next();
  res.writeHead(200, headers);
  // One page waits to be formatted at most: the next is read when the client took enough.
  async function* source(): AsyncGenerator<ExportedEntry[]> {
    try {
      for (let page = first; !page.done; page = await pages.next()) {
        if (page.value.length > 0) yield page.value;
      }
    } finally {
      await pages.return?.();
    }
  }
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      onBytes(chunk.length);
      done(null, chunk);
    },
  });
  if (link.format === 'csv') {
    counted.write(CSV_HEADER);
    // Every text field quoted, empty ones too; numbers (the id) bare; CRLF: as the upstream's export.
    const csv = stringify({ quoted_string: true, quoted_empty: true, record_delimiter: 'windows' });
    await pipeline(Readable.from(source(), { highWaterMark: 1 }), formatter('csv'), csv, counted, res);
  } else {
    await pipeline(Readable.from(source(), { highWaterMark: 1 }), formatter('ndjson'), counted, res);
  }
}

/** The file's name: the device and the window's instants (`traffic-7-20261120T230000Z-20261121T000000Z.csv`). */
export function windowFileName(link: ExportLink & { window: NonNullable<ExportLink['window']> }): string {
  const instant = (iso: string) => iso.replace(/[-:]/g, '').replace(/\.000Z$/, 'Z');
  const { from, to } = link.window;
  const span = from && to ? `${instant(from)}-${instant(to)}` : from ? `from-${instant(from)}` : `until-${instant(to!)}`;
  return `traffic-${link.deviceId}-${span}.${link.format}`;
}
