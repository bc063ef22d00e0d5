// Partial data over real HTTP (graphql.md, "Partial data is the rule"): the counting proxy in
// front of the reference service fails exactly one upstream call, on every attempt, and only the
// field that made that call is null, with its error beside the rest of the data.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProxiedCall } from '../../helpers/counting-proxy.ts';
import { onlyError, startStack, type Stack } from '../../helpers/gateway.ts';
import { v1Request } from '../../helpers/v1.ts';
import { DeviceFanOutDocument, DevicesBesideTrafficDocument } from '../../generated/operations.ts';

const SEED = { devices: 30, traffic: 1_500, hotTraffic: 0 };
/** The device whose traffic call fails. */
const FAILING = '7';
/** Every attempt of a GET: the first and UPSTREAM_RETRIES' default 2. */
const ATTEMPTS = 3;

let stack: Stack;

beforeAll(async () => {
  // The circuit is this gateway's own: cases that fail calls on purpose must not open it for the next.
  stack = await startStack({ v1: { seedSizes: SEED }, gateway: { upstreamCircuitFailures: 0 } });
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

beforeEach(() => {
  stack.proxy.reset();
});

const trafficOf = (deviceId: string) => (call: ProxiedCall) => call.method === 'GET' && call.path === `/api/v1/atb/${deviceId}/traffic`;

/** The newest entries of a device's log, as the service holds them. */
async function newestTraffic(deviceId: string, limit: number): Promise<string[]> {
  const response = await v1Request(stack.v1, 'GET', `/api/v1/atb/${deviceId}/traffic?limit=${limit}&order=-date_time`);
  expect(response.status).toBe(200);
  return (response.json.data as { id: number }[]).map((entry) => String(entry.id));
}

describe('one failed traffic call in a fan-out of 20 devices', () => {
  it("nulls that device's traffic alone, with its error beside the other 19 devices' logs", async () => {
    stack.proxy.fail((call) => (trafficOf(FAILING)(call) ? 503 : undefined));
    const response = await stack.query(DeviceFanOutDocument, { first: 20, trafficFirst: 5 });

    expect(response.status).toBe(200);
    const nodes = response.data!.protectionDevices!.nodes;
    expect(nodes).toHaveLength(20);
    const failing = nodes.findIndex((node) => node.id === FAILING);
    expect(failing).toBeGreaterThanOrEqual(0);

    const error = onlyError(response);
    expect(error.path).toEqual(['protectionDevices', 'nodes', failing, 'traffic']);
    expect(error.extensions).toEqual({
      code: 'UPSTREAM_UNAVAILABLE',
      upstream: { status: 503, error: 1, messages: [{ code: 'injected', message: 'Failed by the test proxy' }] },
    });

    for (const [index, node] of nodes.entries()) {
      if (index === failing) {
        expect(node).toEqual({ id: FAILING, traffic: null });
        continue;
      }
      expect(node.traffic, node.id).not.toBeNull();
      expect(node.traffic!.nodes.map((entry) => entry.id), node.id).toEqual(await newestTraffic(node.id, 5));
    }

    // The failing call was tried on every attempt; each other device's log was read once.
    const trafficCalls = stack.proxy.calls.filter((call) => /^\/api\/v1\/atb\/\d+\/traffic$/.test(call.path));
    expect(trafficCalls.filter(trafficOf(FAILING))).toHaveLength(ATTEMPTS);
    expect(trafficCalls).toHaveLength(19 + ATTEMPTS);
  });
});

describe('a failed root field', () => {
  it('does not blank a sibling root field', async () => {
    stack.proxy.fail((call) => (trafficOf('3')(call) ? 503 : undefined));
    const response = await stack.query(DevicesBesideTrafficDocument, { first: 3, deviceId: '3' });

    expect(response.status).toBe(200);
    expect(response.data).toEqual({ protectionDevices: { nodes: [{ id: '1' }, { id: '2' }, { id: '3' }] }, trafficLog: null });
    const error = onlyError(response);
    expect(error.path).toEqual(['trafficLog']);
    expect(error.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
  });

  it('the other way round: the list fails, the traffic log is there', async () => {
    stack.proxy.fail((call) => (call.path === '/api/v1/atb' ? 503 : undefined));
    const response = await stack.query(DevicesBesideTrafficDocument, { first: 3, deviceId: '3' });

    expect(response.status).toBe(200);
    const error = onlyError(response);
    expect(error.path).toEqual(['protectionDevices']);
    expect(error.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(response.data!.protectionDevices).toBeNull();
    expect(response.data!.trafficLog!.nodes.map((entry) => entry.id)).toEqual(await newestTraffic('3', 2));
  });
});
