// Signed-in users over WebSocket: the token travels in `connection_init`, is checked once per
// connection, and the connection is closed with 4401 ("token expired") when it expires; the
// client reconnects with a fresh token and resumes with `afterId`, losing nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import { tailClient, until, type TailClient } from '../../helpers/subscriptions.ts';
import { startSignedInStack, type SignedInStack } from '../../helpers/signed-in.ts';
import { v1Request } from '../../helpers/v1.ts';

let stack: SignedInStack;
let device: string;
let otherDevice: string;
const clients: TailClient[] = [];

function connect(params: Record<string, unknown> | null): TailClient {
  const client = tailClient(stack.gateway.url, params);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  // About 10 entries a second per device.
  stack = await startSignedInStack({
    gateway: { tail: { ...parseGatewayConfig({}).tail, pollIntervalMs: 100 } },
    v1: { simulateTraffic: 60, seedSizes: { devices: 6, traffic: 100 } },
  });
  const devices = await v1Request(stack.v1, 'GET', '/api/v1/atb?limit=500');
  const all = devices.json.data as { id: number; organization: { id: number } }[];
  device = String(all.find((d) => d.organization.id === 1)!.id);
  otherDevice = String(all.find((d) => d.organization.id === 2)!.id);
});

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
  await stack?.close();
});

describe('a signed-in subscription', () => {
  it('is refused without a token (4401), with a bad token (4401), or an upstream key (4401)', async () => {
    for (const params of [null, { authorization: `Bearer ${await stack.idp.forge(stack.idp.baseClaims())}` }, { 'x-service-token': 'test-org1-key-1111' }]) {
      const client = connect(params);
      const received = client.subscribe({ deviceId: device });
      expect((await client.closed).code).toBe(4401);
      expect(received.ids).toEqual([]);
    }
  });

  it('needs traffic:read and its own organization’s device', async () => {
    const token = await stack.token('org1', ['devices:read']);
    const client = connect({ authorization: `Bearer ${token}` });
    const refused = client.subscribe({ deviceId: device });
    await refused.ended;
    expect(refused.errors.map((error) => [error.extensions?.code, error.extensions?.requiredScopes])).toEqual([['FORBIDDEN', [['traffic:read']]]]);
    const reader = connect({ authorization: `Bearer ${await stack.token('org1', ['traffic:read'])}` });
    const other = reader.subscribe({ deviceId: otherDevice });
    await other.ended;
    expect(other.errors.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
  });

  it('is closed with 4401 when its token expires, and resumes with a fresh token and afterId, losing nothing', { timeout: 60_000 }, async () => {
    const expiresIn = 4;
    const claims = { ...stack.idp.baseClaims('console-org1', '1', ['traffic:read']), exp: Math.floor(Date.now() / 1000) + expiresIn };
    const shortLived = await stack.idp.sign(claims);
    const first = connect({ authorization: `Bearer ${shortLived}` });
    const firstIds = first.subscribe({ deviceId: device });
    const closed = await first.closed;
    expect({ code: closed.code, reason: closed.reason }).toEqual({ code: 4401, reason: 'token expired' });
    expect(Date.now()).toBeGreaterThanOrEqual(claims.exp * 1000 - 50);
    expect(firstIds.ids.length).toBeGreaterThan(0);
    const last = firstIds.ids.at(-1)!;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const fresh = await stack.token('org1', ['traffic:read']);
    const second = connect({ authorization: `Bearer ${fresh}` });
    const resumed = second.subscribe({ deviceId: device, afterId: String(last) });
    await until(() => resumed.ids.length >= 10, 20_000, 'resumed entries');
    resumed.stop();
    expect(resumed.errors).toEqual([]);
    const ids = [...firstIds.ids, ...resumed.ids];
    const logged = (await v1Request(stack.v1, 'GET', `/api/v1/atb/${device}/traffic?order=-id&limit=1000`)).json.data as { id: number }[];
    const expected = logged.map((entry) => entry.id).filter((id) => id >= ids[0]! && id <= ids.at(-1)!).sort((a, b) => a - b);
    expect(ids).toEqual(expected);
  });
});
