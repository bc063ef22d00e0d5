// Every client snippet of the front-end guides (docs/front-end.md, docs/trusted-documents.md), run as written: the files under
// examples/front-end/src/ (which the guide shows, test/unit/readme-examples.test.ts keeps them
// equal) are type-checked against the typed documents codegen generates, then each runs against
// a gateway over real HTTP and WebSocket: Apollo Client with its split link, urql, graphql-ws from
// Node 20 and from a browser, trusted documents with Apollo's persisted-query link and with
// `documentId`, and a GET query. The browser snippets run in Node with the `ws` package standing
// in for the browser's WebSocket (Node 20 has none).
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseGatewayConfig } from '../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../src/gateway/server.ts';
import { captureLogs, DEMO_ADMIN_KEY, startGatewayOn, startStack, type Stack } from '../helpers/gateway.ts';
import { until } from '../helpers/subscriptions.ts';
import { v1Request } from '../helpers/v1.ts';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CACHE = join(REPO, 'node_modules', '.cache');

type Devices = { protectionDevices: { totalCount: number; nodes: { id: string; deviceId: string }[] } | null };
type Entry = { id: string; logMessage: string };
type Unsubscribe = () => void;

describe("the front-end guide's snippets", () => {
  let dir: string;
  let stack: Stack;
  let url: string;
  const key = DEMO_ADMIN_KEY;
  // The examples, loaded from the copy that codegen completed.
  const example = <T>(name: string): Promise<T> => import(join(dir, 'src', `${name}.ts`)) as Promise<T>;

  beforeAll(async () => {
    mkdirSync(CACHE, { recursive: true });
    dir = mkdtempSync(join(CACHE, 'front-end-snippets-'));
    cpSync(join(REPO, 'examples', 'front-end'), dir, { recursive: true });
    rmSync(join(dir, 'src', 'gql'), { recursive: true, force: true });
    const env = { ...process.env, GATEWAY_SCHEMA: join(REPO, 'src', 'gateway', 'generated', 'schema.graphql') };
    await run(join(REPO, 'node_modules', '.bin', 'graphql-codegen'), ['--config', 'codegen.ts'], { cwd: dir, env, timeout: 120_000 });
    stack = await startStack({ v1: { simulateTraffic: 40 } });
    url = stack.gateway.url;
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    delete (globalThis as { WebSocket?: unknown }).WebSocket;
  });

  it('type-check as written against the generated documents', async () => {
    await run(join(REPO, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], { cwd: dir, timeout: 120_000 });
  }, 120_000);

  /** Entries from a subscription until `count` arrived; the ids as numbers. */
  async function entriesOf(subscribe: (onEntry: (entry: Entry) => void) => Unsubscribe, count = 2): Promise<number[]> {
    const ids: number[] = [];
    const stop = subscribe((entry) => ids.push(Number(entry.id)));
    try {
      await until(() => ids.length >= count, 15_000, `${count} traffic entries`);
    } finally {
      stop();
    }
    return ids;
  }

  it('Apollo Client: a typed query over HTTP and the tail over WebSocket, through the split link', async () => {
    (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;
    const { createApolloClient } = await example<{ createApolloClient(url: string, key: string): any }>('apollo-client');
    const { DevicesPage } = await example<{ DevicesPage: unknown }>('devices');
    const { TrafficTail } = await example<{ TrafficTail: unknown }>('follow-traffic');
    const client = createApolloClient(url, key);
    try {
      const { data, error } = await client.query({ query: DevicesPage, variables: { first: 2 } });
      expect(error).toBeUndefined();
      expect((data as Devices).protectionDevices?.nodes).toHaveLength(2);
      const ids = await entriesOf((onEntry) => {
        const subscription = client.subscribe({ query: TrafficTail, variables: { deviceId: '1' } }).subscribe({
          next: ({ data: next }: { data?: { trafficLogEntryAdded?: Entry } }) => next?.trafficLogEntryAdded && onEntry(next.trafficLogEntryAdded),
        });
        return () => subscription.unsubscribe();
      });
      expect(ids[1]).toBeGreaterThan(ids[0]!);
    } finally {
      client.stop();
    }
  });

  it("urql: queries as JSON POSTs (its default GET is refused by the gateway's CSRF rule) and the tail", async () => {
    (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;
    const { createUrqlClient } = await example<{ createUrqlClient(url: string, key: string): any }>('urql-client');
    const { DevicesPage } = await example<{ DevicesPage: unknown }>('devices');
    const { TrafficTail } = await example<{ TrafficTail: unknown }>('follow-traffic');
    const client = createUrqlClient(url, key);
    const result = await client.query(DevicesPage, { first: 2 }).toPromise();
    expect(result.error).toBeUndefined();
    expect((result.data as Devices).protectionDevices?.nodes).toHaveLength(2);
    const ids = await entriesOf((onEntry) => {
      const { unsubscribe } = client.subscription(TrafficTail, { deviceId: '1' }).subscribe((next: { data?: { trafficLogEntryAdded?: Entry } }) => {
        if (next.data?.trafficLogEntryAdded) onEntry(next.data.trafficLogEntryAdded);
      });
      return unsubscribe;
    });
    expect(ids.length).toBeGreaterThanOrEqual(2);
    // Why the snippet sets preferGetMethod: urql's default sends this query as a GET the gateway refuses.
    const { Client, fetchExchange } = await import('@urql/core');
    const byDefault = new Client({ url, exchanges: [fetchExchange], fetchOptions: { headers: { 'x-service-token': key } } });
    const refused = await byDefault.query('query Count { protectionDevices(first: 1) { totalCount } }', {}).toPromise();
    expect(refused.error?.response?.status).toBe(400);
  });

  it('graphql-ws from Node 20, with the ws package, follows the tail', async () => {
    delete (globalThis as { WebSocket?: unknown }).WebSocket;
    const { createNodeWsClient } = await example<{ createNodeWsClient(url: string, key: string): any }>('ws-node');
    const { followTraffic } = await example<{ followTraffic(client: unknown, deviceId: string, onEntry: (entry: Entry) => void): Unsubscribe }>('follow-traffic');
    const client = createNodeWsClient(url.replace(/^http/, 'ws'), key);
    try {
      const ids = await entriesOf((onEntry) => followTraffic(client, '1', onEntry), 3);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await client.dispose();
    }
  });

  it("graphql-ws from a browser (the browser's WebSocket) follows the tail", async () => {
    (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;
    const { createBrowserWsClient } = await example<{ createBrowserWsClient(key: string, url: string): any }>('ws-browser');
    const { followTraffic } = await example<{ followTraffic(client: unknown, deviceId: string, onEntry: (entry: Entry) => void): Unsubscribe }>('follow-traffic');
    const client = createBrowserWsClient(key, url.replace(/^http/, 'ws'));
    try {
      expect((await entriesOf((onEntry) => followTraffic(client, '1', onEntry))).length).toBeGreaterThanOrEqual(2);
    } finally {
      await client.dispose();
    }
  });

  it('trusted documents, enforced: Apollo Client with the manifest hash, and documentId over fetch', async () => {
    const manifest = join(dir, 'src', 'gql', 'persisted-documents.json');
    const enforced = await startGatewayOn(stack.proxy.url, { TRUSTED_DOCUMENTS: manifest, TRUSTED_DOCUMENTS_MODE: 'enforce' });
    try {
      const { createTrustedApolloClient } = await example<{ createTrustedApolloClient(url: string, key: string): any }>('trusted-apollo');
      const { DevicesPage } = await example<{ DevicesPage: unknown }>('devices');
      const client = createTrustedApolloClient(enforced.gateway.url, key);
      const { data, error } = await client.query({ query: DevicesPage, variables: { first: 2 } });
      expect(error).toBeUndefined();
      expect((data as Devices).protectionDevices?.nodes).toHaveLength(2);
      client.stop();
      const { runTrusted } = await example<{ runTrusted(document: unknown, variables: unknown, url: string, key: string): Promise<Devices> }>('trusted-fetch');
      const byId = await runTrusted(DevicesPage, { first: 3 }, enforced.gateway.url, key);
      expect(byId.protectionDevices?.nodes).toHaveLength(3);
      expect(enforced.logs.join('\n')).not.toContain('PERSISTED_QUERY_NOT_ALLOWED');
    } finally {
      await enforced.close();
    }
  });

  it('a GET query with the preflight header', async () => {
    const { getQuery } = await example<{ getQuery(query: string, variables: unknown, url: string, key: string): Promise<Devices> }>('get-query');
    const data = await getQuery('query Count($first: Int) { protectionDevices(first: $first) { totalCount nodes { id deviceId } } }', { first: 1 }, url, key);
    expect(data.protectionDevices?.nodes).toHaveLength(1);
  });

  it("follows the tail through a gateway restart: closed with 1012, the guide's client resumes after its last id, nothing lost or doubled", async () => {
    const { createNodeWsClient } = await example<{ createNodeWsClient(url: string, key: string): any }>('ws-node');
    const { followTraffic } = await example<{ followTraffic(client: unknown, deviceId: string, onEntry: (entry: Entry) => void): Unsubscribe }>('follow-traffic');
    const config = parseGatewayConfig({});
    const start = async (port: number) => {
      const logs = captureLogs();
      const gateway: Gateway = await startGateway({ ...config, port, upstreamUrl: stack.proxy.url, logger: logs.logger });
      return { gateway, logs: logs.lines };
    };
    const first = await start(0);
    const port = first.gateway.port;
    const client = createNodeWsClient(`ws://127.0.0.1:${port}/graphql`, key);
    const ids: number[] = [];
    const stop = followTraffic(client, '1', (entry) => ids.push(Number(entry.id)));
    let second: Awaited<ReturnType<typeof start>> | undefined;
    try {
      await until(() => ids.length >= 5, 15_000, 'entries before the restart');
      await first.gateway.close();
      const beforeRestart = ids.length;
      const closes = first.logs.map((line) => JSON.parse(line) as { msg: string; code?: number }).filter((line) => line.msg === 'websocket connection closed');
      expect(closes.map((line) => line.code)).toEqual([1012]);
      // The next instance, on the same port, a moment later (a deploy's new process).
      await new Promise((resolve) => setTimeout(resolve, 500));
      second = await start(port);
      await until(() => ids.length >= beforeRestart + 20, 30_000, 'entries after the restart');
      stop();
      const logged = (await v1Request(stack.v1, 'GET', '/api/v1/atb/1/traffic?order=-id&limit=1000&offset=0')).json.data as { id: number }[];
      const expected = logged.map((entry) => entry.id).filter((id) => id >= ids[0]! && id <= ids.at(-1)!).sort((a, b) => a - b);
      expect(ids).toEqual(expected);
    } finally {
      await client.dispose();
      await second?.gateway.close();
    }
  }, 60_000);
});
