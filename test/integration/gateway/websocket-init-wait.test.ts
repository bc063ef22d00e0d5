// The wait for `connection_init` times the client, never the gateway: a client that sent it in time
// gets the real answer (acknowledged, or 4403 for a key the upstream refuses) however long the
// upstream takes over the key, and after a stall of the gateway's own event loop; a client that
// sends nothing is still closed with 4408.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { startGateway, type Gateway } from '../../../src/gateway/server.ts';
import { captureLogs, TEST_KEYS } from '../../helpers/gateway.ts';
import { startTestV1, type TestV1 } from '../../helpers/v1.ts';

let v1: TestV1;
let proxy: Server;
/** How long the proxy holds each call before passing it to v1. */
let holdMs = 0;
let gateway: Gateway;

beforeAll(async () => {
  v1 = await startTestV1({ seed: 'demo', seedSizes: { devices: 2, traffic: 10, hotTraffic: 0 } });
  proxy = createServer((req, res) => {
    const forward = () => {
      const target = new URL(v1.url);
      const out = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      req.pipe(out);
    };
    if (holdMs > 0) setTimeout(forward, holdMs);
    else forward();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const logs = captureLogs();
  gateway = await startGateway({ ...parseGatewayConfig({}), port: 0, upstreamUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, logger: logs.logger });
  await gateway.upstreamChecked;
});

afterAll(async () => {
  await gateway?.close();
  await new Promise((resolve) => proxy?.close(resolve));
  await v1?.close();
});

/** Connects with `key` and resolves with how the connection was answered: acknowledged, or its close code. */
function answerTo(key: string, webSocketImpl: new (url: string, protocol: string) => WebSocket = WebSocket): Promise<'acknowledged' | number> {
  return new Promise((resolve) => {
    const client = createClient({ url: gateway.url.replace(/^http/, 'ws'), webSocketImpl, connectionParams: { 'x-service-token': key }, lazy: false, retryAttempts: 0, onNonLazyError: () => {} });
    client.on('connected', () => {
      resolve('acknowledged');
      void client.dispose();
    });
    client.on('closed', (event) => resolve((event as { code: number }).code));
  });
}

describe('the wait for connection_init', () => {
  it('does not time the upstream\'s check of the key: a slow refusal is 4403, a slow acceptance an ack', async () => {
    // Longer than graphql-ws's 3 s wait, within the gateway's upstream deadline (10 s).
    holdMs = 4_000;
    try {
      const [refused, accepted] = await Promise.all([answerTo(`random-key-${Math.random()}`), answerTo(TEST_KEYS.admin)]);
      expect(refused).toBe(4403);
      expect(accepted).toBe('acknowledged');
    } finally {
      holdMs = 0;
    }
  }, 20_000);

  it('does not close a client that sent it in time while the gateway\'s event loop stalled', async () => {
    // The client sends connection_init as its socket opens; then this process (the gateway's)
    // stalls past the wait before it reads the message, as on a machine under load.
    class StallingAfterOpen extends WebSocket {
      constructor(url: string, protocol: string) {
        super(url, protocol);
        this.once('open', () =>
          process.nextTick(() => {
            const until = performance.now() + 3_500;
            while (performance.now() < until);
          }),
        );
      }
    }
    expect(await answerTo(TEST_KEYS.admin, StallingAfterOpen)).toBe('acknowledged');
  }, 20_000);

  it('still closes a socket that sends nothing with 4408', async () => {
    const socket = new WebSocket(gateway.url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    // A ping before connection_init is allowed, and does not stop the wait.
    socket.once('open', () => socket.send(JSON.stringify({ type: 'ping' })));
    const code = await new Promise<number>((resolve) => socket.once('close', (closeCode) => resolve(closeCode)));
    expect(code).toBe(4408);
  }, 20_000);
});
