// Traffic export through the gateway's link against the same export straight from v1, one after
// the other in one run: rows per second of each (the gateway's ratio to direct), and the gateway's
// memory while it streams (its growth must not follow the file's size).
import { memory } from './proc.ts';

export interface ExportFigures {
  deviceId: string;
  rows: number;
  megabytes: number;
  direct: { seconds: number; rowsPerSecond: number };
  gateway: { seconds: number; rowsPerSecond: number };
  ratio: number;
  gatewayRssBeforeMB: number;
  gatewayRssPeakMB: number;
  /** The two downloads were the same bytes. */
  identical: boolean;
}

interface Download {
  seconds: number;
  rows: number;
  bytes: number;
  /** A cheap fingerprint of the bytes, to compare the two downloads. */
  sum: number;
}

async function timedDownload(url: string, headers: Record<string, string>): Promise<Download> {
  const started = performance.now();
  const response = await fetch(url, { headers });
  if (response.status !== 200 || !response.body) throw new Error(`export answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
  let rows = 0;
  let bytes = 0;
  let sum = 0;
  for await (const chunk of response.body) {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (byte === 10) rows += 1;
      // Position-weighted, whatever the chunks' boundaries.
      sum = (sum + byte * ((bytes + i) % 251)) % 1_000_000_007;
    }
    bytes += chunk.length;
  }
  return { seconds: (performance.now() - started) / 1000, rows, bytes, sum };
}

export async function benchExport(
  options: { gatewayUrl: string; gatewayPid: number; v1Url: string; key: string; deviceId: string },
  log: (line: string) => void,
): Promise<ExportFigures> {
  const created = await fetch(options.gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': options.key },
    body: JSON.stringify({ query: `mutation { createTrafficExport(deviceId: "${options.deviceId}", format: CSV) { export { url } } }` }),
  });
  const url = ((await created.json()) as { data?: { createTrafficExport?: { export: { url: string } } } }).data?.createTrafficExport?.export.url;
  if (!url) throw new Error('createTrafficExport gave no link');

  log(`  direct: ${options.v1Url}/api/v1/atb/${options.deviceId}/traffic?export=csv`);
  const direct = await timedDownload(`${options.v1Url}/api/v1/atb/${options.deviceId}/traffic?export=csv`, { 'x-service-token': options.key });
  const gatewayRssBeforeMB = memory(options.gatewayPid).rssMB;
  let gatewayRssPeakMB = gatewayRssBeforeMB;
  const watch = setInterval(() => (gatewayRssPeakMB = Math.max(gatewayRssPeakMB, memory(options.gatewayPid).rssMB)), 100);
  let through: Download;
  try {
    log('  through the gateway: the link, with no key');
    through = await timedDownload(url, {});
  } finally {
    clearInterval(watch);
  }
  const rows = direct.rows - 1; // the header row
  return {
    deviceId: options.deviceId,
    rows,
    megabytes: direct.bytes / 1e6,
    direct: { seconds: direct.seconds, rowsPerSecond: rows / direct.seconds },
    gateway: { seconds: through.seconds, rowsPerSecond: (through.rows - 1) / through.seconds },
    ratio: direct.seconds / through.seconds,
    gatewayRssBeforeMB,
    gatewayRssPeakMB,
    identical: through.bytes === direct.bytes && through.sum === direct.sum,
  };
}
