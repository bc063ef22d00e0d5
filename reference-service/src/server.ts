import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authenticate } from './auth.ts';
import { parseApiKeys, type V1ServiceOptions } from './config.ts';
import { readJsonBody, ClientAbortedError, discardRest } from './http/body.ts';
import { answerClientError } from './http/client-error.ts';
import { checkQueryEncoding } from './http/query.ts';
import { sendFailure, sendSuccess } from './http/envelope.ts';
import { INTERNAL_MESSAGE, V1Error } from './http/errors.ts';
import { Router } from './http/router.ts';
import type { V1Context } from './http/router.ts';
import { v1Routes } from './routes/index.ts';
import type { Database } from './storage/database.ts';
import type { ApiKey } from './storage/keys.ts';
import { openStore } from './storage/open-store.ts';
import { SqliteStore } from './storage/sqlite-store.ts';
import type { V1Store } from './storage/store.ts';
import { startTrafficSimulator } from './simulator.ts';
import type { TrafficSimulator } from './simulator.ts';

export type { V1ServiceOptions } from './config.ts';

export interface V1Service {
  url: string;
  port: number;
  /** Where the service keeps its records (SQLite or PostgreSQL). */
  store: V1Store;
  /** The SQLite database, for tests that set up data behind the service's back; a PostgreSQL service has none (reading it throws). */
  db: Database;
  /** The keys demo seeding created in this start (empty when nothing was seeded). */
  demoKeys: ApiKey[];
  /** Whether this start seeded the demo data (of several processes on one database, exactly one does). */
  seeded: boolean;
  close(): Promise<void>;
}

/** Starts the reference v1 service; resolves once it listens. */
export async function startV1Service(options: V1ServiceOptions = {}): Promise<V1Service> {
  const log = options.logger ?? ((line: string) => console.error(line));
  const configuredKeys = parseApiKeys(options.apiKeys);
  const store = await openStore(options.database ?? './data/v1.sqlite', { log });
  let simulator: TrafficSimulator | undefined;
  let server: Server | undefined;
  try {
    let demoKeys: ApiKey[] = [];
    let seeded = false;
    if ((options.seed ?? 'demo') === 'demo') {
      // Fills an empty database; on an already-seeded one it writes nothing and reports the demo
      // keys still stored there, so a restart prints them too.
      const seeding = await store.seedDemo(options.seedSizes ?? {});
      demoKeys = seeding.keys;
      seeded = seeding.seeded;
    }
    await store.replaceConfiguredKeys(configuredKeys);

    const router = new Router(v1Routes);
    server = createServer({ requestTimeout: 60_000, headersTimeout: 20_000 }, (req, res) => {
      void handleRequest(store, router, log, req, res);
    });
    server.on('clientError', answerClientError);
    await new Promise<void>((resolve, reject) => {
      const listening = server!;
      listening.once('error', reject);
      listening.listen(options.port ?? 8080, options.host ?? '127.0.0.1', () => {
        listening.off('error', reject);
        resolve();
      });
    });
    if (options.simulateTraffic) simulator = startTrafficSimulator(store, options.simulateTraffic, log);

    const listening = server;
    const address = listening.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    let closing: Promise<void> | undefined;
    return {
      url: `http://${host}:${address.port}`,
      port: address.port,
      store,
      get db(): Database {
        if (store instanceof SqliteStore) return store.db;
        throw new Error('a service on PostgreSQL has no SQLite database: use its store');
      },
      demoKeys,
      seeded,
      close() {
        closing ??= (async () => {
          simulator?.stop();
          const closed = new Promise<void>((resolve) => listening.close(() => resolve()));
          listening.closeAllConnections();
          await closed;
          await simulator?.stopped();
          await store.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    simulator?.stop();
    if (server?.listening) {
      server.close();
      server.closeAllConnections();
    }
    await store.close();
    throw error;
  }
}

function splitUrl(url: string): { path: string; query: URLSearchParams } {
  const at = url.indexOf('?');
  return at < 0
    ? { path: url, query: new URLSearchParams() }
    : { path: url.slice(0, at), query: new URLSearchParams(url.slice(at + 1)) };
}

/**
 * One request: authenticate (before routing, so an unknown route or id without a valid key is
 * 401), route (404/405), run the handler, and answer in the envelope. Whatever is not a
 * `V1Error` is logged here and answered with a bare 500 `internal`.
 */
async function handleRequest(
  store: V1Store,
  router: Router,
  log: (line: string) => void,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = req.method ?? 'GET';
  const { path, query } = splitUrl(req.url ?? '/');
  try {
    const principal = await authenticate(store, req);
    const rawQuery = (req.url ?? '').split('?')[1];
    if (rawQuery) checkQueryEncoding(rawQuery);
    const { handler, params } = router.match(method, path);
    let body: Promise<unknown> | undefined;
    const ctx: V1Context = {
      store,
      req,
      res,
      method,
      path,
      params,
      query,
      principal,
      readJson: () => (body ??= readJsonBody(req)),
      log,
    };
    const result = await handler(ctx);
    if (result) sendSuccess(res, result.status, result.fields);
    else if (!res.writableEnded && !res.destroyed) throw new Error('handler returned no result and ended no response');
  } catch (error) {
    if (error instanceof ClientAbortedError) {
      res.destroy();
      return;
    }
    if (!(error instanceof V1Error)) {
      log(`v1: ${method} ${path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    if (error instanceof V1Error) {
      // A body over the limit: the rest is read into nothing (bounded) so that the client can
      // read the 413, then the connection closes.
      if (error.status === 413) {
        res.shouldKeepAlive = false;
        await discardRest(req);
      }
      sendFailure(res, error.status, error.messages, error.headers);
    } else {
      sendFailure(res, 500, [INTERNAL_MESSAGE]);
    }
  }
}
