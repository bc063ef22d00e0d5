// The `export` of operation 8: every matching entry as a CSV or NDJSON download, streamed.
import type { ServerResponse } from 'node:http';
import { sendDownload } from '../http/download.ts';
import type { V1Store } from '../storage/store.ts';
import type { ExportFormat } from '../storage/traffic-export.ts';
import type { TrafficFilter, TrafficOrder } from '../storage/traffic.ts';

export type { ExportFormat } from '../storage/traffic-export.ts';

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const satisfies readonly ExportFormat[];

/**
 * Streams the export: rows are read only as fast as the client takes them (sendDownload waits
 * for the socket to drain), and a client that goes away ends the iteration, which releases what
 * the store holds for the export (a read connection, a cursor).
 */
export function sendTrafficExport(
  res: ServerResponse,
  store: V1Store,
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
    store.exportChunks(filter, order, format),
  );
}
