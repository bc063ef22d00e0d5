// Bench-only entry of the reference v1 service (a child of run.ts): the service as `npm run v1`
// starts it (V1_* settings), plus a count of every request it receives, taken at the service
// itself through node:http's diagnostics channel, so that nothing stands between the callers and
// the service and every caller (gateway, pass-through, direct) is counted the same way.
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { parseV1Config, startV1Service, type V1Service } from 'reference-service';
import { serveParent, tellParentReady } from './children.ts';

let total = 0;
let recorded: string[] | null = null;

subscribe('http.server.request.start', (message) => {
  total += 1;
  if (recorded) {
    const { request } = message as { request: IncomingMessage };
    recorded.push(`${request.method} ${request.url}`);
  }
});

let service: V1Service | undefined;
serveParent(
  {
    /** Requests received since the start (the parent takes differences). */
    count: () => ({ total }),
    /** Start keeping `METHOD url` of each request. */
    record: () => {
      recorded = [];
      return {};
    },
    /** The requests kept since `record`; stops keeping them. */
    recorded: () => {
      const calls = recorded ?? [];
      recorded = null;
      return { calls };
    },
  },
  async () => {
    await service?.close();
  },
);

const started = Date.now();
service = await startV1Service({ ...parseV1Config(process.env), logger: (line) => process.stderr.write(`[v1] ${line}\n`) });
process.stderr.write(`[v1] ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
tellParentReady(service.url);
