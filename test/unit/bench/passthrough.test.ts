// The benchmark compares the gateway with the pass-through: that is only fair while the
// pass-through answers the same data with the same v1 calls. This suite keeps it so, on a small
// demo database, for every shape of the benchmark.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ADMIN_KEY, postGraphQL, startStack, type Stack } from '../../helpers/gateway.ts';
import type { V1Framework } from '../../bench/mapping.ts';
import { startPassthrough, type Passthrough } from '../../bench/passthrough.ts';
import { buildShapes, type Shape } from '../../bench/shapes.ts';
import { compareCalls, firstDifference } from '../../bench/verify.ts';

let stack: Stack;
let passthrough: Passthrough;
let shapes: Shape[];

beforeAll(async () => {
  stack = await startStack({ v1: { seedSizes: { devices: 25, traffic: 500, hotTraffic: 0 } } });
  // In front of the same counting proxy as the gateway, so both are counted where calls land.
  passthrough = await startPassthrough(stack.proxy.url);
  const answer = await fetch(`${stack.v1.url}/api/v1/organizations/1/security-frameworks`, { headers: { 'x-service-token': DEMO_ADMIN_KEY } });
  const framework = ((await answer.json()) as { data: V1Framework[] }).data[0]!;
  shapes = buildShapes({ trafficDeviceId: '2', organizationId: '1', framework });
});

afterAll(async () => {
  await passthrough?.close();
  await stack?.close();
});

async function callsOf(send: () => Promise<unknown>): Promise<{ answer: unknown; calls: string[] }> {
  stack.proxy.reset();
  const answer = await send();
  return { answer, calls: stack.proxy.calls.map((call) => `${call.method} ${call.url}`) };
}

describe.each([1, 2, 3, 4, 5])('shape %i', (id) => {
  it('the pass-through answers the gateway data with the same v1 calls', async () => {
    const shape = shapes.find((s) => s.id === id)!;
    const gateway = await callsOf(async () => {
      const response = await postGraphQL<Record<string, unknown>>(stack.gateway.url, shape.graphql, { 'x-service-token': DEMO_ADMIN_KEY });
      expect(response.status).toBe(200);
      expect(response.errors).toBeUndefined();
      return response.data;
    });
    const plain = await callsOf(async () => {
      const response = await fetch(passthrough.url + shape.passthrough.path, {
        method: shape.passthrough.method,
        headers: { 'x-service-token': DEMO_ADMIN_KEY, 'content-type': 'application/json' },
        body: shape.passthrough.body,
      });
      expect(response.status).toBe(200);
      return response.json();
    });

    expect(firstDifference(gateway.answer, plain.answer)).toBeUndefined();
    expect(plain.answer).toEqual(gateway.answer);
    expect(compareCalls({ gateway: gateway.calls, passthrough: plain.calls, direct: [] })).toEqual({
      sameCalls: true,
      extraCalls: [],
      missingCalls: [],
      duplicateCalls: [],
    });
    expect(gateway.calls.length).toBe(id === 3 ? 21 : 1);
  });
});
