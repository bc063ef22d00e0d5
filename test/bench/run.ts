// `npm run bench`: what the gateway adds, side by side. The reference v1 service (seeded for
// benchmarks, in a file database reused across runs), the gateway and a plain pass-through run as
// child processes; for each request shape, each target (gateway, pass-through, v1 called
// directly) is verified once, warmed up, then loaded with autocannon. v1 counts the calls it
// receives; /proc gives the children's CPU time and memory. Then a sustained mixed load checks
// that the gateway's memory stays flat, and the reference service's own search and export figures
// are taken on the hot device, and the soak (soak.ts) puts every surface under load at once on a
// gateway of its own. Knobs: BENCH_* environment variables (settings.ts); BENCH_ONLY=soak runs
// the soak alone.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism, loadavg } from 'node:os';
import { guardChildren, stopAllChildren } from './children.ts';
import { BenchDatabase } from './database.ts';
import type { V1Framework } from './mapping.ts';
import { benchShape, soak, VerificationFailure } from './measure.ts';
import { memory, MemorySampler } from './proc.ts';
import { measureReferenceFigures } from './reference-figures.ts';
import { textReport, updateBenchmarkDoc, writeReports } from './report.ts';
import type { BenchResults, ShapeResult } from './results.ts';
import { isSettingError, readSettings, warmUpSetting, type BenchSettings } from './settings.ts';
import { buildShapes, type Shape } from './shapes.ts';
import { HOT_DEVICE, startStack, v1Get } from './stack.ts';
import { benchTail } from './tail.ts';
import { benchSoak } from './soak.ts';
import { benchExport } from './export.ts';
import { benchProduction } from './production.ts';
import { benchReplicas } from './replicas.ts';
import { benchStartup } from './startup.ts';
import {
  evaluateExportTargets,
  evaluateProductionTargets,
  evaluateReferenceTargets,
  evaluateSoakTargets,
  evaluateStartupTargets,
  evaluateTailTargets,
  evaluateTargets,
  isFlat,
} from './targets.ts';

/** Shape 1 reads an ordinary device, not the hot one. */
const TRAFFIC_DEVICE = '2';
const ORGANIZATION = '1';
/** The gateway's default (TAIL_POLL_INTERVAL_MS): the bench runs it as `npm start` does. */
const TAIL_POLL_INTERVAL_MS = 1000;

const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  let settings: BenchSettings;
  try {
    settings = readSettings();
  } catch (error) {
    if (isSettingError(error)) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  guardChildren();
  mkdirSync(settings.dir, { recursive: true });
  const startedAt = new Date().toISOString();
  const loadAtStart = loadavg()[0]!;
  const db = new BenchDatabase(settings.dir, settings.seed);
  // BENCH_ONLY names the one part to run: every other is skipped.
  const runs = (part: 'soak' | 'others') => settings.only === undefined || settings.only === part;
  log(
    settings.only
      ? `Only the ${settings.only} (BENCH_ONLY=${settings.only}): ${settings.soakS} s`
      : `Gateway vs pass-through vs direct v1: shapes ${settings.shapes.join(', ')}; ${warmUpSetting(settings)} and about ` +
          `${settings.durationS} s per measurement in ${settings.rounds} stretches taken in turns; ${settings.soakRounds} sustained rounds; ` +
          `a soak of ${settings.soakS} s; gateway LOG_LEVEL=${settings.gatewayLogLevel}`,
  );
  const stack = await startStack(settings, db);
  try {
    const sampler = new MemorySampler(stack.gateway.pid);
    const gatewayStartMB = memory(stack.gateway.pid).rssMB;

    const frameworks = await v1Get<{ data: V1Framework[] }>(`${stack.v1Url}/api/v1/organizations/${ORGANIZATION}/security-frameworks`, settings.key);
    const framework = frameworks.data[0];
    if (!framework) throw new Error(`organization ${ORGANIZATION} has no security framework to benchmark`);
    // BENCH_CONNECTIONS, when given, is every shape's concurrency: settled here, once.
    const shapes = buildShapes({ trafficDeviceId: TRAFFIC_DEVICE, organizationId: ORGANIZATION, framework })
      .filter((shape) => runs('others') && settings.shapes.includes(shape.id))
      .map((shape) => ({ ...shape, connections: settings.connections ?? shape.connections }));

    // First, while the machine is quiet: new gateways started beside the running one, each timed
    // from its spawn to its first answered query.
    let startup: BenchResults['startup'] = null;
    if (settings.startup && runs('others')) {
      log('\nStart-up: the compiled gateway (npm start\'s settings) from spawn to its first answered query');
      try {
        startup = await benchStartup(stack.v1Url, settings);
        log(`  the first start after the build: ${startup.firstStartMs.toFixed(0)} ms`);
        log(`  then: ${startup.startsMs.map((ms) => ms.toFixed(0)).join(', ')} ms: median ${startup.medianMs.toFixed(0)} ms`);
        if (startup.inherited) {
          log(`  in turn, with the machine's ${startup.inherited.variables.join(', ')}: ${startup.inherited.startsMs.map((ms) => ms.toFixed(0)).join(', ')} ms: median ${startup.inherited.medianMs.toFixed(0)} ms`);
        }
      } catch (error) {
        startup = { error: error instanceof Error ? error.message : String(error) };
      }
    }

    const results: ShapeResult[] = [];
    const skipped: BenchResults['skipped'] = [];
    const measured: Shape[] = [];
    for (const shape of shapes) {
      try {
        results.push(await benchShape(stack, shape, settings, sampler));
        measured.push(shape);
      } catch (error) {
        // A target that cannot answer the shape once is not measured (a benchmark of errors is worthless).
        if (!(error instanceof VerificationFailure)) throw error;
        log(`  NOT MEASURED: ${error.message}`);
        skipped.push({ id: shape.id, name: shape.name, reason: error.message });
      }
    }

    const rounds = await soak(stack, measured, settings, sampler);
    sampler.mark('end');

    let tail: BenchResults['tail'] = null;
    if (settings.tail && runs('others')) {
      log('\nLive traffic tail: 1,000 subscribers over 50 devices, 100 entries a second');
      try {
        // The last 50 devices (fewer in a small database): neither the hot device nor the one
        // shape 1 reads.
        const last = settings.seed.devices;
        const count = Math.min(50, last - 2);
        tail = await benchTail(
          {
            gatewayUrl: stack.gatewayUrl,
            gatewayPid: stack.gateway.pid,
            databasePath: db.path,
            key: settings.key,
            deviceIds: Array.from({ length: count }, (_, i) => last - count + 1 + i),
            // At most 1,000 subscribers in 50 connections of 20: the gateway's default caps per key.
            subscribersPerDevice: Math.floor(1000 / count),
            subscriptionsPerConnection: 20,
            entriesPerSecond: 100,
            durationS: Math.max(10, settings.durationS * 2),
            pollIntervalMs: TAIL_POLL_INTERVAL_MS,
          },
          log,
        );
      } catch (error) {
        tail = { error: error instanceof Error ? error.message : String(error) };
      }
    }

    let soaked: BenchResults['soak'] = null;
    if (settings.soakS > 0 && runs('soak')) {
      log(`\nSoak: every surface at once for ${settings.soakS} s on a gateway of its own (cache, throttling, trusted documents on)`);
      try {
        sampler.mark('soak (every surface)');
        soaked = await benchSoak({ v1Url: stack.v1Url, databasePath: db.path, settings }, log);
      } catch (error) {
        soaked = { error: error instanceof Error ? error.message : String(error) };
      }
    }

    let production: BenchResults['production'] = null;
    if (settings.production && measured.length > 0 && runs('others')) {
      log('\nProduction settings: throttling and tracing on against the defaults, the response cache against the pass-through');
      try {
        production = await benchProduction(stack, measured, settings, log);
      } catch (error) {
        production = { error: error instanceof Error ? error.message : String(error) };
      }
    }

    let replicas: BenchResults['replicas'] = null;
    if (settings.replicas && runs('others') && measured.some((shape) => shape.id === 2 || shape.id === 3)) {
      log('\nReplicas: GATEWAY_WORKERS=2 sharing a Redis (throttling on: two Redis round trips a request) against one worker');
      try {
        replicas = await benchReplicas(stack, measured, settings, log);
      } catch (error) {
        replicas = { error: error instanceof Error ? error.message : String(error) };
      }
    }

    let exported: BenchResults['export'] = null;
    if (settings.export && settings.seed.hotTraffic > 0 && runs('others')) {
      log(`\nExport: CSV of device ${HOT_DEVICE} through the gateway's link against v1's own`);
      try {
        exported = await benchExport({ gatewayUrl: stack.gatewayUrl, gatewayPid: stack.gateway.pid, v1Url: stack.v1Url, key: settings.key, deviceId: HOT_DEVICE }, log);
      } catch (error) {
        exported = { error: error instanceof Error ? error.message : String(error) };
      }
    }

    let reference: BenchResults['reference'] = null;
    if (settings.reference && settings.seed.hotTraffic > 0 && runs('others')) {
      log(`\nReference service: search, CSV and NDJSON export on device ${HOT_DEVICE}`);
      try {
        reference = await measureReferenceFigures({
          v1Url: stack.v1Url,
          v1Pid: stack.v1.pid,
          key: settings.key,
          deviceId: HOT_DEVICE,
          searches: settings.searches,
          durationS: settings.durationS,
        });
      } catch (error) {
        reference = { error: error instanceof Error ? error.message : String(error) };
      }
    }

    sampler.sample();
    sampler.stop();
    const gatewayEndMB = memory(stack.gateway.pid).rssMB;
    const memoryFigures: BenchResults['memory'] = {
      gatewayStartMB,
      gatewayEndMB,
      gatewayPeakMB: sampler.peak(),
      gatewayLoadPeakMB: sampler.peak((phase) => phase !== 'end'),
      soak: { rounds, ...isFlat(rounds.map((r) => r.meanMB)) },
      samples: sampler.samples,
    };
    const { key: _key, ...publicSettings } = settings;
    const report: BenchResults = {
      startedAt,
      finishedAt: new Date().toISOString(),
      machine: {
        cpus: availableParallelism(),
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
        loadAtStart,
        loadAtEnd: loadavg()[0]!,
      },
      settings: publicSettings,
      database: { path: db.path, reused: stack.reused, startSeconds: stack.startSeconds },
      shapes: results,
      memory: memoryFigures,
      reference,
      tail,
      soak: soaked,
      export: exported,
      production,
      replicas,
      startup,
      skipped,
      checks: [
        ...skipped.map((shape) => ({ name: `shape ${shape.id} (${shape.name}): answered`, met: false, detail: shape.reason })),
        ...(runs('others') ? evaluateTargets(results, memoryFigures) : []),
        ...evaluateReferenceTargets(reference),
        ...evaluateTailTargets(tail),
        ...evaluateSoakTargets(soaked),
        ...evaluateExportTargets(exported),
        ...evaluateProductionTargets(production),
        ...evaluateStartupTargets(startup),
      ],
    };
    const text = textReport(report);
    log(`\n${text}`);
    const files = writeReports(report, text, settings.dir);
    log(`\nWrote ${files.json} and ${files.html}`);
    log(updateBenchmarkDoc(report));
    if (settings.gatewayProfile) log(`The gateway's CPU profile goes to ${join(settings.dir, 'profiles')} when it stops (open it in Chrome DevTools).`);
  } finally {
    await stack.directPool.close();
    await stopAllChildren();
  }
}

main().catch(async (error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await stopAllChildren();
  process.exit(1);
});
