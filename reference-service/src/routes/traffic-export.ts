// The `export` of operation 8: every matching entry as a CSV or NDJSON download, streamed.
import type { ServerResponse } from 'node:http';
import { sendDownload } from '../http/download.ts';
import type { Database } from '../storage/database.ts';
import { exportLines } from '../storage/traffic-export.ts';
import type { ExportFormat } from '../storage/traffic-export.ts';
import type { TrafficFilter, TrafficOrder } from '../storage/traffic.ts';

export type { ExportFormat } from '../storage/traffic-export.ts';

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const satisfies readonly ExportFormat[];

// Lines are joined into chunks of about this many characters: one write per chunk, as one write
// per line would cost more in syscalls than the encoding itself.
const CHUNK_CHARS = 64 * 1024;

function* chunks(lines: Iterable<string>): Generator<string, void, undefined> {
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

/**
 * Streams the export: rows are read only as fast as the client takes them (sendDownload waits
 * for the socket to drain), and a client that goes away ends the iteration, which closes the
 * statement and the export's read connection.
 */
export function sendTrafficExport(
  res: ServerResponse,
  db: Database,
  filter: TrafficFilter,
  order: TrafficOrder,
  format: ExportFormat,
): Promise<void> {
  return sendDownload(
    res,
    {
      contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
      filename: `device-${filter.deviceId}-traffic.${format}`,
    },
    chunks(exportLines(db, filter, order, format)),
  );
}
