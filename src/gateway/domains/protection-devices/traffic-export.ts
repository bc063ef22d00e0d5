// `Mutation.createTrafficExport`: a download link for a device's traffic. Minting one first reads
// the device's log with the caller's key (a page of one, with the same filter), so a link is
// never made for a device the key may not read, nor for a filter v1 refuses; the download then
// acts with that key, which the gateway keeps and the link never shows (export-links/).
import type { MutationResolvers, TrafficExportFormat } from '../../generated/resolvers.ts';
import type { ExportFormat } from '../../export-links/index.ts';
import { requirePositiveId } from '../common/arguments.ts';
import { trafficFilter, wireOrder } from './list-arguments.ts';
import { listTraffic } from './operations.ts';
import { TRAFFIC_ORDER_FIELDS } from './traffic.ts';

const FORMATS: Record<TrafficExportFormat, ExportFormat> = { CSV: 'csv', NDJSON: 'ndjson' };

export const createTrafficExport: NonNullable<MutationResolvers['createTrafficExport']> = async (_parent, args, context) => {
  const deviceId = requirePositiveId(args.deviceId, 'deviceId');
  const order = wireOrder(TRAFFIC_ORDER_FIELDS, args.orderBy ?? { field: 'DATE_TIME' }, 'DESC');
  const filter = trafficFilter(args.filter);
  await listTraffic(context.upstream, deviceId, { limit: 1, order, ...filter });
  const { url, expiresAt } = await context.exportLinks.mint(context.origin, { apiKey: context.apiKey ?? '', deviceId, format: FORMATS[args.format], order, ...filter });
  return { export: { url, format: args.format, expiresAt: new Date(expiresAt).toISOString() } };
};
