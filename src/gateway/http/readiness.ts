// `GET /readyz`: ready when the upstream answers and its circuit is not open.
import type { ServerResponse } from 'node:http';
import type { Transport } from '../upstream/transport.ts';
import { sendJson } from './plain.ts';

export async function readiness(transport: Transport, res: ServerResponse): Promise<void> {
  // An open circuit: GraphQL calls fail fast until a probe gets through, so not ready either.
  if (transport.breaker.state === 'open') {
    return sendJson(res, 503, { status: 'unavailable', reason: 'the upstream failed repeatedly; calls to it are paused' });
  }
  if ((await transport.answers()).ok) sendJson(res, 200, { status: 'ready' });
  else sendJson(res, 503, { status: 'unavailable', reason: 'the upstream does not answer' });
}
