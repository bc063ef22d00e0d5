// The lines of a traffic export, built by SQLite: one string per entry crosses into JavaScript
// instead of eight values, which is most of the cost of a million-row export.
import type { Database } from './database.ts';
import { iterateTraffic } from './traffic.ts';
import type { TrafficFilter, TrafficOrder } from './traffic.ts';

export type ExportFormat = 'csv' | 'ndjson';

export const CSV_HEADER = 'id,date_time,type,src_ip,dest_ip,dest_port,log_message,extra\r\n';

// RFC 4180 quoting: every text field is quoted, its quotes doubled (commas, CR and LF need no more
// inside quotes). The RFC lets any field be quoted; quoting all of them is one replace() a field,
// where looking for the four characters first costs more than the quoting saves.
const csvText = (column: string) => `replace(${column}, '"', '""')`;

const CSV_COLUMNS = ['t.date_time', 't.type', 't.src_ip', 't.dest_ip', 't.dest_port', 't.log_message', 't.extra'];

const LINE: Record<ExportFormat, string> = {
  // concat() rather than printf('%s'), which would cut a text at a NUL character.
  csv: `concat(t.id, ',"', ${CSV_COLUMNS.map(csvText).join(`, '","', `)}, '"', char(13, 10))`,
  // The entry object as the JSON list serves it (same keys, order and escapes as JSON.stringify).
  ndjson: `json_object('id', t.id, 'date_time', t.date_time, 'type', t.type, 'src_ip', t.src_ip,
    'dest_ip', t.dest_ip, 'dest_port', t.dest_port, 'log_message', t.log_message, 'extra', json(t.extra)) || char(10)`,
};

/** The export's lines, each with its line ending; the CSV header first. */
export function* exportLines(
  db: Database,
  filter: TrafficFilter,
  order: TrafficOrder,
  format: ExportFormat,
): Generator<string, void, undefined> {
  if (format === 'csv') yield CSV_HEADER;
  yield* iterateTraffic<string>(db, filter, order, LINE[format]);
}

// Lines are joined into chunks of about this many characters: one write per chunk, as one write
// per line would cost more in syscalls than the encoding itself.
export const CHUNK_CHARS = 64 * 1024;

/** Lines joined into chunks of about CHUNK_CHARS. */
export function* chunks(lines: Iterable<string>): Generator<string, void, undefined> {
  let chunk = '';
  for (const line of lines) {
    chunk += line;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

/** The export as chunks of lines (see exportLines). */
export function exportChunks(
  db: Database,
  filter: TrafficFilter,
  order: TrafficOrder,
  format: ExportFormat,
): Generator<string, void, undefined> {
  return chunks(exportLines(db, filter, order, format));
}
