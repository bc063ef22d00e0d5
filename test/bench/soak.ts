// The soak: a sustained adversarial mix over every surface of one gateway at once, for a set time.
// Several organizations' dashboards (the bench's shapes, by their keys, read through the response
// cache, each key also sent as a bearer), a framework edit written back again and again, a key
// that asks for far more than its throttle bucket allows, documents that are not trusted, keys the
// upstream refuses (over HTTP and WebSocket), export links minted and downloaded while one
// download is left stalled, and live tail subscribers, one of them a slow reader, while entries
// are logged into the reference service's database. It judges what must hold however long it
// runs: no 5xx but the ones the contract documents, every answer one the surface may give, no key
// in any answer or log line, no answer of one organization's key holding another's records, no
// entry in a tail that is not its device's, every entry to every subscriber once and in order
// (the slow one included, resuming with `afterId` where the gateway cut it), and the gateway's
// memory flat across the run. Timings are reported, never judged.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { createRng, insertTraffic, makeLiveTrafficEntry, openDatabase } from 'reference-service/testing';
import { TAIL_SUBSCRIPTION, tailClient, until, type Received, type TailClient } from '../helpers/subscriptions.ts';
import { slowConsumer, stallDownload } from './soak-clients.ts';
import { MemorySampler } from './proc.ts';
import { buildShapes, type Shape } from './shapes.ts';
import { HOT_DEVICE, startGatewayChild, v1Get } from './stack.ts';
import type { BenchSettings } from './settings.ts';
import type { V1Framework } from './mapping.ts';
import { isFlat } from './targets.ts';
import { metric } from './tail.ts';

/** The demo seed's keys (reference-service/src/seed/generate/organizations.ts): one per organization, and the admin's. */
export const SOAK_KEYS = {
  admin: 'demo-admin-key',
  organizations: [
    { id: '1', key: 'demo-org1-key-acme' },
    { id: '2', key: 'demo-org2-key-northwind' },
    { id: '3', key: 'demo-org3-key-globex' },
  ],
} as const;

/**
 * The soak gateway's settings over npm start's: the response cache, throttling tight enough that
 * the greedy key is refused, trusted documents enforced (the soak's documents are the manifest),
 * stalled downloads cut soon, and the tail polled four times a second.
 */
export function soakGatewayEnv(manifestPath: string): Record<string, string> {
  return {
    RESPONSE_CACHE_TTL_S: '2',
    RATE_LIMIT_CALLS: '200',
    RATE_LIMIT_RESTORE_PER_S: '50',
    TRUSTED_DOCUMENTS: manifestPath,
    TRUSTED_DOCUMENTS_MODE: 'enforce',
    EXPORT_IDLE_TIMEOUT_S: '3',
    TAIL_POLL_INTERVAL_MS: '250',
    LOG_LEVEL: 'info',
  };
}

export interface SoakOptions {
  /** The soak's shapes (`soakShapes`), the documents of the gateway's manifest. */
  shapes: Shape[];
  gatewayUrl: string;
  gatewayPid: number;
  v1Url: string;
  /** The reference service's SQLite file: the soak logs traffic entries into it. */
  databasePath: string;
  durationS: number;
  /** The gateway's log lines so far (every one is searched for keys). */
  gatewayLog: () => string;
  /** Entries logged per second, over the followed devices (default 40). */
  entriesPerSecond?: number;
  /** The device of the download left stalled: a large log, so that its file cannot fit in the sockets' buffers. */
  stallDeviceId?: string;
}

/** What each surface answered: requests by surface and outcome (`200`, `429 RATE_LIMITED`, …). */
export interface SoakFigures {
  durationS: number;
  requests: number;
  requestsPerSecond: number;
  outcomes: Record<string, Record<string, number>>;
  /** Answers no surface may give (a 5xx the contract does not document, a code out of place): the first few. */
  unexpected: string[];
  unexpectedCount: number;
  /** 5xx answers other than the documented refusals (a saturated export: 503 with Retry-After). */
  unexpected5xx: number;
  /** Answers whose fields missed the upstream's deadline (UPSTREAM_TIMEOUT): tolerated, reported. */
  upstreamTimeouts: number;
  keysInAnswers: number;
  keysInLogs: number;
  logLines: number;
  /** Answers to one organization's key that held another organization's records. */
  crossedAnswers: number;
  tail: {
    subscribers: number;
    entriesLogged: number;
    deliveries: number;
    foreign: number;
    lost: number;
    duplicated: number;
    outOfOrder: number;
    errors: number;
    slowConsumer: { entries: number; resumed: number; lost: number; duplicated: number; outOfOrder: number };
    refusedSockets: number;
    refusedSocketsClosedWith4403: number;
    /** Closed by the gateway's connection_init wait (4408): this process sent none within 3 s. */
    refusedSocketsTimedOut4408: number;
  };
  exports: { downloads: number; rows: number; stalledStarted: number; stalledCut: number };
  memory: { sliceMeansMB: number[]; peakMB: number; growthMB: number; flat: boolean };
}

/**
 * The trusted documents manifest of the soak's gateway, written into `dir`: every document the
 * soak sends but the one it sends to be refused (the shapes', the greedy key's, the export's and
 * the tail's), in the client preset's format.
 */
export function writeSoakManifest(dir: string, shapes: Shape[]): string {
  const documents = [...shapes.map((shape) => shape.graphql.query), GREEDY_QUERY, EXPORT_MUTATION, TAIL_SUBSCRIPTION];
  const path = join(dir, 'soak-documents.json');
  writeFileSync(path, JSON.stringify(Object.fromEntries(documents.map((text) => [`sha256:${createHash('sha256').update(text).digest('hex')}`, text]))));
  return path;
}

/**
 * The greedy key's read: ten devices' traffic since a moment it picks anew each time, so that no
 * answer comes from the response cache and every request costs tens of upstream calls (a window's
 * page takes a few calls a device).
 */
const GREEDY_QUERY = `query SoakGreedy($from: DateTime!) {
  protectionDevices(first: 10) { nodes { id traffic(first: 5, filter: { from: $from }) { totalCount nodes { id } } } }
}`;
const EXPORT_MUTATION = 'mutation SoakExport($deviceId: ID!) { createTrafficExport(deviceId: $deviceId, format: CSV) { export { url } } }';
const UNTRUSTED = '{ protectionDevices(first: 1) { totalCount } }';
/**
 * The run's memory is sampled in this many slices of equal length. The first is the warm-up (the
 * heap grows to its working size as every surface's code and caches fill); flatness is judged on
 * the others, by the bench's rule (targets.ts, `isFlat`).
 */
const SLICES = 5;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The soak's shapes: the bench's, on organization 1's first framework and a device of its own. */
export async function soakShapes(v1Url: string): Promise<Shape[]> {
  const frameworks = await v1Get<{ data: V1Framework[] }>(`${v1Url}/api/v1/organizations/1/security-frameworks`, SOAK_KEYS.admin);
  const devices = await v1Get<{ data: { id: number }[] }>(`${v1Url}/api/v1/atb?limit=1`, SOAK_KEYS.organizations[0].key);
  return buildShapes({ trafficDeviceId: String(devices.data[0]!.id), organizationId: '1', framework: frameworks.data[0]! });
}

class Tally {
  requests = 0;
  readonly outcomes: Record<string, Record<string, number>> = {};
  readonly unexpected: string[] = [];
  unexpectedCount = 0;
  unexpected5xx = 0;
  keysInAnswers = 0;
  crossedAnswers = 0;
  upstreamTimeouts = 0;
  constructor(private readonly secrets: string[]) {}

  /** Counts an answer of `surface`; `allowed` says which `status code` pairs it may give. */
  record(surface: string, status: number, body: string, allowed: (outcome: string) => boolean): void {
    this.requests += 1;
    const code = /"code":"([A-Z_]+)"/.exec(body)?.[1];
    const outcome = code ? `${status} ${code}` : String(status);
    const bySurface = (this.outcomes[surface] ??= {});
    bySurface[outcome] = (bySurface[outcome] ?? 0) + 1;
    if (this.secrets.some((secret) => body.includes(secret))) this.keysInAnswers += 1;
    if (allowed(outcome)) return;
    // A deadline missed on a shared machine under this load: counted and reported, as the load
    // test tolerates it (test/system/load.test.ts); a surface starved by another shows in the count.
    if (outcome === '200 UPSTREAM_TIMEOUT') {
      this.upstreamTimeouts += 1;
      return;
    }
    this.unexpectedCount += 1;
    if (status >= 500) this.unexpected5xx += 1;
    if (this.unexpected.length < 10) this.unexpected.push(`${surface}: ${outcome} ${body.slice(0, 300)}`);
  }
}

/** Success, or the throttle's refusal (429 with RATE_LIMITED): what a key under its budget's pressure may get. */
const okOrThrottled = (outcome: string) => outcome === '200' || outcome === '429 RATE_LIMITED';

export async function runSoak(options: SoakOptions, log: (line: string) => void): Promise<SoakFigures> {
  const { gatewayUrl, v1Url, shapes } = options;
  const shape = (name: string) => shapes.find((s) => s.name === name)!;
  const refusedKeys = Array.from({ length: 3 }, () => `soak-refused-${randomBytes(6).toString('hex')}`);
  const allKeys = [SOAK_KEYS.admin, ...SOAK_KEYS.organizations.map((o) => o.key), ...refusedKeys];
  const tally = new Tally(allKeys);
  const [dashboardOrg1, dashboardOrg2, greedy] = SOAK_KEYS.organizations;

  // Every organization's own devices, by its key, through v1.
  const devicesOf = async (key: string) => (await v1Get<{ data: { id: number }[] }>(`${v1Url}/api/v1/atb?limit=4&order=-id`, key)).data.map((d) => String(d.id));
  const followed: Record<string, string[]> = { [dashboardOrg1.id]: await devicesOf(dashboardOrg1.key), [dashboardOrg2.id]: await devicesOf(dashboardOrg2.key) };
  const busyDevice = followed[dashboardOrg1.id]![0]!;
  const tailDevices = [...followed[dashboardOrg1.id]!, ...followed[dashboardOrg2.id]!];

  const post = async (body: unknown, headers: Record<string, string>) => {
    const answer = await request(gatewayUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: answer.statusCode, body: await answer.body.text() };
  };
  const running = { until: 0 };
  const loop = (concurrency: number, step: (i: number) => Promise<void>) =>
    Promise.all(
      Array.from({ length: concurrency }, async (_, lane) => {
        for (let i = lane; performance.now() < running.until; i += concurrency) {
          try {
            await step(i);
          } catch (error) {
            tally.record('network', 0, String(error), () => false);
            await sleep(100);
          }
        }
      }),
    );

  // --- The tail: subscribers before any entry is logged, each from a known entry. -------------------
  const newest = async (device: string) => (await v1Get<{ data: { id: number }[] }>(`${v1Url}/api/v1/atb/${device}/traffic?limit=1&order=-id`, SOAK_KEYS.admin)).data[0]?.id ?? 0;
  const startAt = new Map<string, number>();
  for (const device of tailDevices) startAt.set(device, await newest(device));
  const subscribers: { device: string; received: Received }[] = [];
  const clients: TailClient[] = [];
  for (const organization of [dashboardOrg1, dashboardOrg2]) {
    const client = tailClient(gatewayUrl, { 'x-service-token': organization.key });
    clients.push(client);
    for (const device of followed[organization.id]!) subscribers.push({ device, received: client.subscribe({ deviceId: device, afterId: String(startAt.get(device)) }) });
  }
  const slow = slowConsumer(gatewayUrl, SOAK_KEYS.admin, busyDevice, startAt.get(busyDevice)!);
  const admitted = subscribers.length + 1;
  const deadline = performance.now() + 60_000;
  while ((await metric(gatewayUrl, 'traffic_tail_subscriptions')) < admitted) {
    if (performance.now() > deadline) throw new Error('the soak subscribers were not all admitted within 60 s');
    await sleep(100);
  }

  // --- Memory: sampled all along, judged by slices of the run. ------------------------------------
  const sampler = new MemorySampler(options.gatewayPid);
  const durationMs = options.durationS * 1000;
  const started = performance.now();
  running.until = started + durationMs;
  const marks = setInterval(() => sampler.mark(`slice ${Math.min(SLICES, 1 + Math.floor(((performance.now() - started) / durationMs) * SLICES))}`), 100);
  sampler.mark('slice 1');
  log(`  ${admitted} tail subscribers admitted (one a slow reader); ${options.durationS} s of the mix`);

  // --- The writer: entries into the followed devices, half of them into the slow reader's. --------
  const logged = new Map<string, number[]>();
  const writer = (async () => {
    const db = openDatabase(options.databasePath);
    const rng = createRng(31);
    const perSecond = options.entriesPerSecond ?? 40;
    try {
      let owed = 0;
      let last = performance.now();
      while (performance.now() < running.until) {
        await sleep(25);
        const now = performance.now();
        owed += ((now - last) / 1000) * perSecond;
        last = now;
        for (; owed >= 1; owed -= 1) {
          const device = rng.next() < 0.5 ? busyDevice : tailDevices[Math.floor(rng.next() * tailDevices.length)]!;
          const id = insertTraffic(db, makeLiveTrafficEntry(rng, Number(device), new Date()));
          (logged.get(device) ?? logged.set(device, []).get(device)!).push(id);
        }
      }
    } finally {
      db.close();
    }
  })();

  // --- HTTP: every surface at once. ----------------------------------------------------------------
  const asKey = (key: string) => ({ 'x-service-token': key });
  const dashboards = [shape('traffic-one'), shape('device-page'), shape('frameworks')];
  const dashboard = (organization: (typeof SOAK_KEYS.organizations)[number]) => async (i: number) => {
    const chosen = dashboards[i % dashboards.length]!;
    const variables = chosen.name === 'frameworks' ? { organizationId: organization.id } : chosen.name === 'traffic-one' ? { deviceId: followed[organization.id]![0] } : chosen.graphql.variables;
    // The same key as a bearer every other time: one key, two ways to send it, one cache entry's owner.
    const headers = i % 2 === 0 ? asKey(organization.key) : { authorization: `Bearer ${organization.key}` };
    const answer = await post({ query: chosen.graphql.query, variables }, headers);
    tally.record(`dashboard ${chosen.name}`, answer.status, answer.body, (outcome) => okOrThrottled(outcome) && !(outcome === '200' && answer.body.includes('"errors"')));
    const organizations = [...answer.body.matchAll(/"organization":\{"id":"(\d+)"/g)].map((m) => m[1]);
    if (organizations.some((id) => id !== organization.id)) tally.crossedAnswers += 1;
  };
  const mutation = async () => {
    const edit = shape('framework-edit');
    const answer = await post(edit.graphql, asKey(SOAK_KEYS.admin));
    tally.record('mutation', answer.status, answer.body, (outcome) => okOrThrottled(outcome) && !(outcome === '200' && answer.body.includes('"errors"')));
  };
  const greedyReads = async () => {
    const from = new Date(Date.UTC(2026, 10, 1) + Math.floor(Math.random() * 20 * 86_400) * 1000).toISOString();
    const answer = await post({ query: GREEDY_QUERY, variables: { from } }, asKey(greedy.key));
    // Past its bucket, 429; past MAX_UPSTREAM_CALLS (a window over a device with a long log
    // takes more calls), the fields past the limit fail: both are what asking too much gets.
    tally.record('throttled key', answer.status, answer.body, (outcome) => okOrThrottled(outcome) || outcome === '200 UPSTREAM_BUDGET_EXCEEDED');
  };
  const untrusted = async () => {
    const answer = await post({ query: UNTRUSTED }, asKey(dashboardOrg2.key));
    tally.record('untrusted document', answer.status, answer.body, (outcome) => outcome === '400 PERSISTED_QUERY_NOT_ALLOWED');
    await sleep(20);
  };
  const refused = async (i: number) => {
    const answer = await post({ query: shape('device-page').graphql.query }, asKey(refusedKeys[i % refusedKeys.length]!));
    // The gateway cannot tell a key is refused before the upstream says so: the fields fail, UNAUTHENTICATED.
    tally.record('refused key', answer.status, answer.body, (outcome) => outcome === '200 UNAUTHENTICATED');
    await sleep(20);
  };
  const exportsFigures = { downloads: 0, rows: 0, stalledStarted: 0, stalledCut: 0 };
  const exportDevice = followed[dashboardOrg2.id]![1] ?? followed[dashboardOrg2.id]![0]!;
  const mint = async (key: string, device: string) => {
    const answer = await post({ query: EXPORT_MUTATION, variables: { deviceId: device } }, asKey(key));
    tally.record('export link', answer.status, answer.body, (outcome) => okOrThrottled(outcome) && !(outcome === '200' && answer.body.includes('"errors"')));
    return /"url":"([^"]+)"/.exec(answer.body)?.[1];
  };
  const download = async () => {
    const url = await mint(dashboardOrg2.key, exportDevice);
    if (!url) return;
    const answer = await request(url);
    const text = await answer.body.text();
    // Past the concurrent downloads' caps: 429 (this key's) or 503 (all of them), each with Retry-After, as documented.
    const saturated = (answer.statusCode === 429 || answer.statusCode === 503) && answer.headers['retry-after'] !== undefined;
    tally.record('export download', answer.statusCode, answer.statusCode === 200 ? '' : text, (outcome) => outcome === '200' || saturated);
    if (answer.statusCode === 200) {
      exportsFigures.downloads += 1;
      exportsFigures.rows += text.split('\n').length - 2;
      if (!text.endsWith('\n')) tally.record('export download', 200, 'a download that did not end whole', () => false);
    }
  };
  const stalled = async () => {
    const url = await mint(SOAK_KEYS.admin, options.stallDeviceId ?? busyDevice);
    if (!url) return;
    exportsFigures.stalledStarted += 1;
    if (await stallDownload(gatewayUrl, url, Math.max(0, running.until - performance.now()))) exportsFigures.stalledCut += 1;
  };
  const refusedSocket = async () => {
    const client = tailClient(gatewayUrl, { 'x-service-token': refusedKeys[0]! });
    client.subscribe({ deviceId: busyDevice }, TAIL_SUBSCRIPTION);
    const closed = await Promise.race([client.closed, sleep(30_000).then(() => ({ code: 0, reason: 'still open after 30 s' }))]);
    await client.dispose();
    sockets.refused += 1;
    // 4403: the key was refused. 4408: the gateway's wait for connection_init ran out, which only
    // this process can cause (stalled under load before it sent one); closed all the same.
    if (closed.code === 4403) sockets.closed4403 += 1;
    else if (closed.code === 4408) sockets.closed4408 += 1;
    else tally.record('refused socket', 0, `closed with ${closed.code} ${closed.reason}`, () => false);
    await sleep(500);
  };
  const sockets = { refused: 0, closed4403: 0, closed4408: 0 };

  await Promise.all([
    writer,
    loop(3, dashboard(dashboardOrg1)),
    loop(3, dashboard(dashboardOrg2)),
    loop(1, mutation),
    loop(2, greedyReads),
    loop(1, untrusted),
    loop(1, refused),
    loop(1, download),
    loop(1, stalled),
    loop(1, refusedSocket),
  ]);
  const elapsedS = (performance.now() - started) / 1000;
  clearInterval(marks);
  sampler.mark('drain');

  // --- The tail, judged once the last entries had time to arrive. ---------------------------------
  const expected = (device: string) => logged.get(device) ?? [];
  // The last entries reach their subscribers within a poll or two; the slow reader, when it has caught up.
  const caughtUp = () => slow.ids.length >= expected(busyDevice).length && subscribers.every((s) => s.received.ids.length >= expected(s.device).length);
  await until(caughtUp, 60_000, 'the subscribers to catch up').catch(() => undefined);
  for (const subscriber of subscribers) subscriber.received.stop();
  await Promise.all(clients.map((client) => client.dispose()));
  await slow.stop();
  sampler.stop();

  const tail = { subscribers: admitted, entriesLogged: [...logged.values()].reduce((n, ids) => n + ids.length, 0), deliveries: 0, foreign: 0, lost: 0, duplicated: 0, outOfOrder: 0, errors: 0 };
  /** One subscriber's ids against what was logged into its device, added to the tail's figures. */
  const judge = (device: string, ids: number[]) => {
    const own = new Set(expected(device));
    const got = new Set(ids);
    const figures = {
      foreign: ids.filter((id) => !own.has(id)).length,
      lost: expected(device).filter((id) => !got.has(id)).length,
      duplicated: ids.length - got.size,
      outOfOrder: ids.filter((id, i) => i > 0 && id <= ids[i - 1]!).length,
    };
    tail.deliveries += ids.length;
    tail.foreign += figures.foreign;
    tail.lost += figures.lost;
    tail.duplicated += figures.duplicated;
    tail.outOfOrder += figures.outOfOrder;
    return figures;
  };
  for (const subscriber of subscribers) {
    judge(subscriber.device, subscriber.received.ids);
    tail.errors += subscriber.received.errors.length;
  }
  const slowJudged = judge(busyDevice, slow.ids);
  tail.errors += slow.errors.length;

  const logText = options.gatewayLog();
  const logLines = logText.split('\n').filter(Boolean);
  const means = Array.from({ length: SLICES }, (_, i) => sampler.mean((phase) => phase === `slice ${i + 1}`));
  const flat = isFlat(means.slice(1));
  return {
    durationS: elapsedS,
    requests: tally.requests,
    requestsPerSecond: tally.requests / elapsedS,
    outcomes: tally.outcomes,
    unexpected: tally.unexpected,
    unexpectedCount: tally.unexpectedCount,
    unexpected5xx: tally.unexpected5xx,
    upstreamTimeouts: tally.upstreamTimeouts,
    keysInAnswers: tally.keysInAnswers,
    keysInLogs: logLines.filter((line) => allKeys.some((key) => line.includes(key))).length,
    logLines: logLines.length,
    crossedAnswers: tally.crossedAnswers,
    tail: {
      ...tail,
      slowConsumer: { entries: slow.ids.length, resumed: slow.resumed, lost: slowJudged.lost, duplicated: slowJudged.duplicated, outOfOrder: slowJudged.outOfOrder },
      refusedSockets: sockets.refused,
      refusedSocketsClosedWith4403: sockets.closed4403,
      refusedSocketsTimedOut4408: sockets.closed4408,
    },
    exports: exportsFigures,
    memory: { sliceMeansMB: means, peakMB: sampler.peak(), growthMB: flat.growthMB, flat: flat.flat && means.every(Number.isFinite) },
  };
}

/** The soak's figures in a few lines. */
export function soakText(figures: SoakFigures): string[] {
  const t = figures.tail;
  const outcomes = Object.entries(figures.outcomes)
    .map(([surface, counts]) => `${surface}: ${Object.entries(counts).map(([outcome, n]) => `${n} x ${outcome}`).join(', ')}`)
    .join('; ');
  return [
    `${figures.requests.toLocaleString('en-US')} requests in ${figures.durationS.toFixed(0)} s (${figures.requestsPerSecond.toFixed(0)}/s): ${outcomes}`,
    `unexpected answers ${figures.unexpectedCount} (5xx ${figures.unexpected5xx}); upstream deadlines missed ${figures.upstreamTimeouts}; keys in answers ${figures.keysInAnswers}, in ${figures.logLines} log lines ${figures.keysInLogs}; answers crossing organizations ${figures.crossedAnswers}`,
    `tail: ${t.subscribers} subscribers, ${t.entriesLogged} entries logged, ${t.deliveries} deliveries; foreign ${t.foreign}, lost ${t.lost}, duplicated ${t.duplicated}, out of order ${t.outOfOrder}, errors ${t.errors}; ` +
      `slow reader ${t.slowConsumer.entries} entries (resumed ${t.slowConsumer.resumed} times); refused sockets ${t.refusedSockets}, closed with 4403 ${t.refusedSocketsClosedWith4403}, with 4408 ${t.refusedSocketsTimedOut4408}`,
    `exports: ${figures.exports.downloads} downloads (${figures.exports.rows} rows), ${figures.exports.stalledStarted} stalled, ${figures.exports.stalledCut} cut by the gateway`,
    `gateway RSS mean per fifth of the run (the first a warm-up) ${figures.memory.sliceMeansMB.map((mb) => mb.toFixed(1)).join(', ')} MB, peak ${figures.memory.peakMB.toFixed(1)} MB`,
    ...figures.unexpected.map((line) => `  unexpected: ${line}`),
  ];
}

const START_TIMEOUT_MS = 60_000;

/**
 * The bench's soak: a gateway of its own (the bundle, npm start's settings and the soak's) in
 * front of the bench's reference service, its JSON logs written to <dir>/soak-gateway.log (every
 * line searched for keys), the stalled download on the hot device when there is one.
 */
export async function benchSoak(
  options: { v1Url: string; databasePath: string; settings: BenchSettings },
  log: (line: string) => void,
): Promise<SoakFigures> {
  const { settings } = options;
  const shapes = await soakShapes(options.v1Url);
  const logFile = join(settings.dir, 'soak-gateway.log');
  const child = startGatewayChild('gateway (soak)', { ...settings, gatewayLogFile: logFile }, options.v1Url, soakGatewayEnv(writeSoakManifest(settings.dir, shapes)));
  try {
    const { url } = await child.ready(START_TIMEOUT_MS);
    return await runSoak(
      {
        shapes,
        gatewayUrl: url,
        gatewayPid: child.pid,
        v1Url: options.v1Url,
        databasePath: options.databasePath,
        durationS: settings.soakS,
        gatewayLog: () => readFileSync(logFile, 'utf8'),
        ...(settings.seed.hotTraffic > 0 ? { stallDeviceId: HOT_DEVICE } : {}),
      },
      log,
    );
  } finally {
    await child.stop();
  }
}
