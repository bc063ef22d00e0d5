// The live traffic tail under load: many subscribers over many devices while entries are logged
// at a steady rate. The bench logs the entries itself, into the reference service's database
// (WAL lets a second writer in), so it knows each entry's insertion time to the millisecond; the
// subscribers are graphql-ws clients over real WebSockets. It checks that every subscriber got
// every entry of its device logged while it listened, once, in order, and measures the delivery
// latency, the upstream polls per second (the gateway's own counter) and the gateway's memory.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createRng, insertTraffic, makeLiveTrafficEntry, openDatabase } from 'reference-service/testing';
import { memory } from './proc.ts';

export interface TailOptions {
  gatewayUrl: string;
  gatewayPid: number;
  databasePath: string;
  key: string;
  /** Devices followed: these ids. */
  deviceIds: number[];
  subscribersPerDevice: number;
  subscriptionsPerConnection: number;
  entriesPerSecond: number;
  durationS: number;
  pollIntervalMs: number;
}

export interface TailFigures {
  subscribers: number;
  devices: number;
  entriesLogged: number;
  deliveries: number;
  lost: number;
  duplicated: number;
  outOfOrder: number;
  /** Errors any subscriber received (none expected). */
  errors: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  pollsPerSecond: number;
  pollIntervalMs: number;
  rssBeforeMB: number;
  rssPeakMB: number;
}

const QUERY = 'subscription ($d: ID!) { trafficLogEntryAdded(deviceId: $d) { id } }';

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A gauge or counter of the gateway's /metrics, by its line's name and labels (0 when absent). */
export async function metric(gatewayUrl: string, name: string): Promise<number> {
  const text = await (await fetch(new URL('/metrics', gatewayUrl))).text();
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

export async function benchTail(options: TailOptions, log: (line: string) => void): Promise<TailFigures> {
  const rssBeforeMB = memory(options.gatewayPid).rssMB;
  let rssPeakMB = rssBeforeMB;
  const watch = setInterval(() => (rssPeakMB = Math.max(rssPeakMB, memory(options.gatewayPid).rssMB)), 200);
  try {
    return await measure(options, log, () => rssPeakMB, rssBeforeMB);
  } finally {
    clearInterval(watch);
  }
}

async function measure(options: TailOptions, log: (line: string) => void, peak: () => number, rssBeforeMB: number): Promise<TailFigures> {
  // Subscribers: each device followed by `subscribersPerDevice`, packed into connections.
  const wanted = options.deviceIds.flatMap((device) => Array.from({ length: options.subscribersPerDevice }, () => device));
  const received: Subscriber[] = [];
  const clients: Client[] = [];
  const unsubscribe: (() => void)[] = [];
  for (let i = 0; i < wanted.length; i += options.subscriptionsPerConnection) {
    const client = createClient({ url: options.gatewayUrl.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: { 'x-service-token': options.key }, retryAttempts: 0 });
    clients.push(client);
    for (const device of wanted.slice(i, i + options.subscriptionsPerConnection)) {
      const subscriber = { device, ids: [] as number[], at: [] as number[], errors: 0 };
      received.push(subscriber);
      unsubscribe.push(
        client.subscribe(
          { query: QUERY, variables: { d: String(device) } },
          {
            next: (result) => {
              const id = (result.data as { trafficLogEntryAdded?: { id: string } } | null)?.trafficLogEntryAdded?.id;
              if (id === undefined) subscriber.errors += 1;
              else {
                subscriber.ids.push(Number(id));
                subscriber.at.push(performance.now());
              }
            },
            error: () => (subscriber.errors += 1),
            complete: () => {},
          },
        ),
      );
    }
  }
  try {
    return await logAndCheck(options, log, peak, rssBeforeMB, wanted.length, received);
  } finally {
    for (const stop of unsubscribe) stop();
    await Promise.all(clients.map((client) => client.dispose()));
  }
}

interface Subscriber {
  device: number;
  ids: number[];
  at: number[];
  errors: number;
}

async function logAndCheck(
  options: TailOptions,
  log: (line: string) => void,
  peak: () => number,
  rssBeforeMB: number,
  subscribers: number,
  received: Subscriber[],
): Promise<TailFigures> {
  const wanted = { length: subscribers };
  // Every subscriber admitted, every poller running: then the entries start.
  const deadline = performance.now() + 60_000;
  while ((await metric(options.gatewayUrl, 'traffic_tail_subscriptions')) < wanted.length) {
    if (performance.now() > deadline) throw new Error('the tail bench subscribers were not all admitted within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await new Promise((resolve) => setTimeout(resolve, options.pollIntervalMs * 2));
  for (const subscriber of received) subscriber.ids.length = subscriber.at.length = 0;
  log(`  ${wanted.length} subscribers on ${options.deviceIds.length} devices admitted; logging ${options.entriesPerSecond} entries/s for ${options.durationS} s`);

  // The writer: a steady rate, spread over the followed devices, each insertion time kept.
  const db = openDatabase(options.databasePath);
  const rng = createRng(7);
  const logged = new Map<number, { device: number; at: number }>();
  const pollsBefore = await metric(options.gatewayUrl, 'traffic_tail_polls_total{outcome="ok"}');
  const startedAt = performance.now();
  let owed = 0;
  let last = startedAt;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      owed += ((now - last) / 1000) * options.entriesPerSecond;
      last = now;
      for (; owed >= 1; owed -= 1) {
        const device = options.deviceIds[Math.floor(rng.next() * options.deviceIds.length)]!;
        const id = insertTraffic(db, makeLiveTrafficEntry(rng, device, new Date()));
        logged.set(id, { device, at: performance.now() });
      }
      if (now - startedAt >= options.durationS * 1000) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
  });
  const loggingS = (performance.now() - startedAt) / 1000;
  const pollsAfter = await metric(options.gatewayUrl, 'traffic_tail_polls_total{outcome="ok"}');
  db.close();
  // The last entries reach their subscribers within a poll or two.
  await new Promise((resolve) => setTimeout(resolve, options.pollIntervalMs * 3));

  let lost = 0;
  let duplicated = 0;
  let outOfOrder = 0;
  let deliveries = 0;
  let errors = 0;
  const latencies: number[] = [];
  const expectedByDevice = new Map<number, number[]>();
  for (const [id, entry] of logged) {
    const list = expectedByDevice.get(entry.device) ?? [];
    list.push(id);
    expectedByDevice.set(entry.device, list);
  }
  for (const subscriber of received) {
    const expected = expectedByDevice.get(subscriber.device) ?? [];
    const got = new Set(subscriber.ids);
    duplicated += subscriber.ids.length - got.size;
    lost += expected.filter((id) => !got.has(id)).length;
    for (let i = 1; i < subscriber.ids.length; i++) if (subscriber.ids[i]! <= subscriber.ids[i - 1]!) outOfOrder += 1;
    deliveries += subscriber.ids.length;
    errors += subscriber.errors;
    subscriber.ids.forEach((id, i) => {
      const entry = logged.get(id);
      if (entry) latencies.push(subscriber.at[i]! - entry.at);
    });
  }
  latencies.sort((a, b) => a - b);
  return {
    subscribers: wanted.length,
    devices: options.deviceIds.length,
    entriesLogged: logged.size,
    deliveries,
    lost,
    duplicated,
    outOfOrder,
    errors,
    latencyP50Ms: percentile(latencies, 50),
    latencyP99Ms: percentile(latencies, 99),
    pollsPerSecond: (pollsAfter - pollsBefore) / loggingS,
    pollIntervalMs: options.pollIntervalMs,
    rssBeforeMB,
    rssPeakMB: peak(),
  };
}
