// The soak's two difficult clients (soak.ts): a tail subscriber that reads slowly, and a
// download that stops reading after its first chunk.
import { get } from 'node:http';
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { tailClient, type Received, type TailClient } from '../helpers/subscriptions.ts';
import { metric } from './tail.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A subscriber that reads slowly: its socket stops reading for 1.5 s out of every 2, so the
 * gateway's sends back up behind it. Cut with TAIL_GAP (it fell too far behind), it resumes from
 * the last entry it received, as the contract tells a client to.
 */
export function slowConsumer(gatewayUrl: string, key: string, deviceId: string, afterId: number) {
  const state = { ids: [] as number[], errors: [] as Received['errors'], resumed: 0, stopped: false };
  let current: { client: TailClient; received: Received } | undefined;
  // The TCP socket under the WebSocket: paused, it reads nothing, and the gateway's writes wait.
  let tcp: Socket | undefined;
  const pauses = setInterval(() => {
    const paused = tcp;
    paused?.pause();
    setTimeout(() => paused?.resume(), 1_500);
  }, 2_000);
  const start = (from: number) => {
    const client = tailClient(gatewayUrl, { 'x-service-token': key });
    client.client.on('connected', (socket) => (tcp = (socket as WebSocket & { _socket: Socket })._socket));
    const received = client.subscribe({ deviceId, afterId: String(from) });
    current = { client, received };
    void received.ended.then(() => {
      state.ids.push(...received.ids.slice(0));
      received.ids.length = 0;
      const gap = received.errors.some((error) => error.extensions?.code === 'TAIL_GAP');
      if (!gap) state.errors.push(...received.errors);
      void client.dispose();
      if (gap && !state.stopped) {
        state.resumed += 1;
        start(state.ids.at(-1) ?? from);
      }
    });
  };
  start(afterId);
  return {
    get ids() {
      return [...state.ids, ...(current?.received.ids ?? [])];
    },
    get resumed() {
      return state.resumed;
    },
    get errors() {
      return state.errors;
    },
    async stop() {
      state.stopped = true;
      clearInterval(pauses);
      const last = current!;
      state.ids.push(...last.received.ids);
      last.received.ids.length = 0;
      last.received.stop();
      await last.client.dispose();
    },
  };
}

/** The gateway's count of downloads it cut because their clients read nothing. */
const CUT_IDLE = 'traffic_exports_total{outcome="client_idle"}';

/**
 * A download that reads its first chunk and then nothing, for at most `waitMs`: true when the
 * gateway cut it for that. A paused socket does not see its peer close it, so the cut is read
 * from the gateway's own counter (the soak leaves one download stalled at a time).
 */
export async function stallDownload(gatewayUrl: string, url: string, waitMs: number): Promise<boolean> {
  const before = await metric(gatewayUrl, CUT_IDLE);
  const request = get(url);
  const status = await new Promise<number>((resolve) => {
    request.once('response', (response) => {
      if (response.statusCode !== 200) response.resume();
      else response.once('data', () => response.pause());
      resolve(response.statusCode ?? 0);
    });
    request.on('error', () => resolve(0));
  });
  try {
    if (status !== 200) return false;
    const deadline = performance.now() + waitMs;
    while (performance.now() < deadline) {
      await sleep(250);
      if ((await metric(gatewayUrl, CUT_IDLE)) > before) return true;
    }
    return false;
  } finally {
    request.destroy();
  }
}
