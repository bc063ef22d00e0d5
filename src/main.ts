// The command (`npm start`): reads the configuration, starts the embedded reference service when
// no upstream is configured, starts the gateway in front of it, and stops both on a signal.
// This module is the only one that knows both halves; they never import each other. The reference
// service is a package of its own (reference-service/), loaded only when it is to run: its code
// and its database driver are no part of a gateway in front of a configured upstream.
import type { V1Service, V1ServiceOptions } from 'reference-service';
import { ConfigError, parseGatewayConfig, type GatewayConfig } from './gateway/config.ts';
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { hostForUrl } from './gateway/http/origin.ts';
import { describeBuild } from './gateway/observability/build-info.ts';
import { startGateway, type Gateway } from './gateway/server.ts';
import { primaryState } from './gateway/shared-state/primary-state.ts';
import { workersLocalState } from './gateway/workers-state.ts';
import { isWorker, runWorkers, WORKER_DEMO_KEY } from './workers.ts';

type ReferenceService = typeof import('reference-service');

/** The embedded demo's traffic: a few entries a second over its devices, a small database a day. */
const DEMO_TRAFFIC_PER_SECOND = 2;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

interface Settings {
  config: GatewayConfig;
  /** The embedded default's package and its V1_* settings; undefined with UPSTREAM_URL. */
  reference: { service: ReferenceService; options: V1ServiceOptions } | undefined;
}

async function readSettings(): Promise<Settings> {
  let config: GatewayConfig;
  try {
    config = parseGatewayConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  // V1_* settings matter only to the embedded service; with UPSTREAM_URL they are not read, and
  // the reference service's package (its database driver included) is never loaded.
  if (config.upstreamUrl !== undefined) return { config, reference: undefined };
  const service = await import('reference-service');
  try {
    return { config, reference: { service, options: service.parseV1Config(process.env) } };
  } catch (error) {
    // The package's own ConfigError: the class of the module just loaded.
    if (error instanceof service.ConfigError) fail(error.message);
    throw error;
  }
}

/** The embedded default: the reference service on a free loopback port, demo data in a file database. */
async function startEmbedded({ service, options: v1Options }: NonNullable<Settings['reference']>): Promise<{ embedded: V1Service; demoKey: string | undefined }> {
  let embedded: V1Service;
  const database = v1Options.database ?? './data/v1.sqlite';
  // The first start seeds the demo database, a few seconds of silence otherwise. (A database
  // whose folder is a file is refused in one line below, with nothing said before it.)
  const folder = dirname(database);
  if ((v1Options.seed ?? 'demo') === 'demo' && (!existsSync(folder) || statSync(folder).isDirectory())) {
    if (database === ':memory:') process.stderr.write('seeding the demo data into an in-memory database (a few seconds)…\n');
    else if (!existsSync(database)) process.stderr.write(`seeding the demo data into ${database} (a few seconds, once)…\n`);
  }
  try {
    // Its traffic simulator runs gently (V1_SIMULATE_TRAFFIC, 2 entries a second unless set), so
    // that a newcomer who subscribes to a device's traffic sees entries arrive.
    embedded = await service.startV1Service({
      ...v1Options,
      host: '127.0.0.1',
      port: 0,
      seed: v1Options.seed ?? 'demo',
      simulateTraffic: v1Options.simulateTraffic ?? DEMO_TRAFFIC_PER_SECOND,
    });
  } catch (error) {
    // A file system or SQLite error (it has a code) is about the database file the setting names.
    if (typeof (error as { code?: unknown }).code === 'string') {
      fail(`V1_DATABASE: cannot use "${service.shownDatabase(v1Options.database ?? './data/v1.sqlite')}": ${firstLine(error)}`);
    }
    fail(`embedded v1 service failed to start: ${firstLine(error)}`);
  }
  return { embedded, demoKey: embedded.demoKeys.find((key) => key.organizationId === null)?.key };
}

/** What the command prints once the gateway (every worker) listens. */
function banner(config: GatewayConfig, port: number, upstreamUrl: string, embedded: { database: string; demoKey: string | undefined } | undefined): string {
  const shownHost = config.host === '127.0.0.1' || config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `http://${hostForUrl(shownHost)}:${port}/graphql`;
  const lines = [`GraphQL gateway ready at ${url}`];
  if (config.mcp) lines.push(`MCP tools for assistants at ${url.replace(/\/graphql$/, '/mcp')} (Streamable HTTP)`);
  if (config.workers > 1) lines.push(`${config.workers} workers on one port, sharing state through Redis (REDIS_URL)`);
  if (embedded) {
    lines.push(`Embedded v1 reference service at ${upstreamUrl} (database ${embedded.database})`);
    if (embedded.demoKey) {
      lines.push(`Demo key (admin, all organizations): ${embedded.demoKey}  (send it as X-Service-Token)`);
      if (config.landingPage) {
        const explorer = config.landingPageKind === 'sandbox' ? 'Apollo Sandbox (it needs the internet)' : 'GraphiQL (it works offline)';
        lines.push(`Open ${url} in a browser: ${explorer} starts with the demo key in its headers.`);
        if (config.landingPageKind === 'default') lines.push(`Apollo Sandbox, when online: ${url}?explorer=sandbox (a link on the page)`);
      }
    }
  } else {
    lines.push(`Upstream v1 service: ${new URL(upstreamUrl).origin}`);
  }
  lines.push(`Gateway ${describeBuild()}`);
  return `${lines.join('\n')}\n`;
}

/** The last log lines written out before exiting, for at most a second (the reader may have stalled). */
function flushLogs(gateway: Gateway): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, 1_000).unref();
    try {
      gateway.logger.flush(() => resolve());
    } catch {
      resolve();
    }
  });
}

async function main(): Promise<void> {
  const { config, reference } = await readSettings();
  const v1Options = reference?.options;
  const worker = isWorker();

  let embedded: V1Service | undefined;
  // A worker's primary started the embedded service and passed on its URL and demo key.
  let demoKey: string | undefined = worker ? process.env[WORKER_DEMO_KEY] : undefined;
  if (reference) ({ embedded, demoKey } = await startEmbedded(reference));
  const upstreamUrl = config.upstreamUrl ?? embedded!.url;
  const embeddedInfo =
    embedded || demoKey
      ? { database: reference ? reference.service.shownDatabase(v1Options?.database ?? './data/v1.sqlite') : './data/v1.sqlite', demoKey }
      : undefined;

  if (config.workers > 1 && !worker) {
    runWorkers({
      workers: config.workers,
      env: { UPSTREAM_URL: upstreamUrl, ...(demoKey ? { [WORKER_DEMO_KEY]: demoKey } : {}) },
      onReady(url) {
        process.stdout.write(banner(config, Number(new URL(url).port), upstreamUrl, embedded ? embeddedInfo : undefined));
        process.send?.({ type: 'ready', url });
      },
      async onStopped(code) {
        await embedded?.close();
        process.exit(code);
      },
      stopTimeoutMs: config.stopTimeoutMs,
      // While Redis is unreachable the workers share the primary's memory: one cache, one set of links.
      onWorker: primaryState(workersLocalState(config)),
      log: (message) => process.stderr.write(`${message}\n`),
    });
    return;
  }

  let gateway: Gateway;
  try {
    gateway = await startGateway({ ...config, upstreamUrl, demoKey, embeddedDemo: embeddedInfo !== undefined });
  } catch (error) {
    await embedded?.close();
    if (error instanceof ConfigError) fail(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') fail(`PORT: cannot listen on ${config.host}:${config.port} (${code})`);
    if (code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL' || code === 'EAI_AGAIN') fail(`HOST: cannot listen on ${config.host} (${code})`);
    throw error;
  }
  // Ready is said once the start's one look at the upstream is over (a 2 s deadline at most): an
  // upstream that does not answer is warned of before the banner, not after it.
  await gateway.upstreamChecked;

  // A worker's primary prints the banner once every worker listens.
  if (!worker) process.stdout.write(banner(config, gateway.port, upstreamUrl, embeddedInfo));
  // Started by a supervisor over an IPC channel (a process manager, the benchmark, a worker's
  // primary): it learns the address to reach once the gateway listens.
  process.send?.({ type: 'ready', url: gateway.url });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      // A worker told by its signal and then by its primary's channel closing: one stop.
      if (signal === 'disconnect') return;
      // A second signal: the operator does not want to wait for the requests in flight.
      gateway.logger.warn({ signal }, 'stopping now, requests in flight are cut');
      process.exit(1);
    }
    stopping = true;
    const stoppingAt = performance.now();
    gateway.logger.info({ signal }, 'stopping: finishing requests in flight');
    // Whatever hangs (a client gone mid-stream, an upstream that never answers, a stalled log
    // reader), the stop ends: past its deadline the process exits.
    setTimeout(() => {
      process.stderr.write(`the stop took longer than STOP_TIMEOUT_MS (${config.stopTimeoutMs} ms): exiting with what is left cut\n`);
      process.exit(1);
    }, config.stopTimeoutMs).unref();
    try {
      // Stops accepting at once, lets the requests in flight finish (Apollo's drain plugin cuts
      // them after its grace period), then the upstream they needed.
      await gateway.close();
      await embedded?.close();
      // The last line: an operator (or an orchestrator's log) sees the stop completed, not cut.
      gateway.logger.info({ signal, durationMs: Math.round(performance.now() - stoppingAt) }, 'stopped');
      await flushLogs(gateway);
      process.exit(0);
    } catch (error) {
      gateway.logger.error({ err: error }, 'unclean stop');
      await flushLogs(gateway);
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // A supervisor's process that outlives it would hold the port with no one to stop it.
  if (process.send) process.on('disconnect', () => void stop('disconnect'));
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway failed to start: ${firstLine(error)}\n`);
  process.exit(1);
});
