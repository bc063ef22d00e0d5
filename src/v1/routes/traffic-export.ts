// The `export` of operation 8: every matching entry as a CSV or NDJSON download, streamed.
import type { ServerResponse } from 'node:http';
import { sendDownload } from '../http/download.ts';
import type { Database } from '../storage/database.ts';
import { iterateTraffic } from '../storage/traffic.ts';
import type { TrafficFilter, TrafficOrder, TrafficRow } from '../storage/traffic.ts';

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const CSV_HEADER = 'id,date_time,type,src_ip,dest_ip,dest_port,log_message,extra\r\n';

// RFC 4180: a field holding a comma, a double quote or a line break is quoted, its quotes doubled.
const NEEDS_QUOTES = /[",\r\n]/;

function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One CSV record (CRLF-terminated); `extra` is the JSON object as stored. */
export function csvLine(row: TrafficRow): string {
  const [id, dateTime, type, srcIp, destIp, destPort, logMessage, extra] = row;
  return `${id},${csvField(dateTime)},${csvField(type)},${csvField(srcIp)},${csvField(destIp)},${csvField(destPort)},${csvField(logMessage)},${csvField(extra)}\r\n`;
}

/** One NDJSON line: the entry object as the JSON list serves it, `extra` spliced in as stored. */
export function ndjsonLine(row: TrafficRow): string {
  const [id, dateTime, type, srcIp, destIp, destPort, logMessage, extra] = row;
  return `{"id":${id},"date_time":${JSON.stringify(dateTime)},"type":${JSON.stringify(type)},"src_ip":${JSON.stringify(srcIp)},"dest_ip":${JSON.stringify(destIp)},"dest_port":${JSON.stringify(destPort)},"log_message":${JSON.stringify(logMessage)},"extra":${extra}}\n`;
}

// Lines are joined into chunks of about this many characters before they are handed on: one
// write (and one turn of the async pipeline) per chunk, not per line.
const CHUNK_CHARS = 64 * 1024;

function* chunks(rows: Iterable<TrafficRow>, format: ExportFormat): Generator<string, void, undefined> {
  const line = format === 'csv' ? csvLine : ndjsonLine;
  let chunk = format === 'csv' ? CSV_HEADER : '';
  for (const row of rows) {
    chunk += line(row);
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
    chunks(iterateTraffic(db, filter, order), format),
  );
}
