// A request's data is cut apart once its answer is written (src/gateway/request-trees.ts): the
// upstream answers its client parsed lose their lists and what their items hold, so that the old
// promises that still point at them keep nothing alive. Nothing else may be touched: another
// request's answers, the answer written, the next request's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listProtectionDevices } from '../../src/gateway/domains/protection-devices/operations.ts';
import { Transport } from '../../src/gateway/upstream/transport.ts';
import { cutApart, RequestTrees, stringifyAndCut, takeText } from '../../src/gateway/request-trees.ts';
import { postGraphQL, startStack, DEMO_ADMIN_KEY, type Stack } from '../helpers/gateway.ts';

describe('cutting a tree apart', () => {
  it('empties its arrays and takes from each object the objects it holds, down to the items of its lists', () => {
    const deep = { list: [7] };
    const item = { id: 1, name: 'a', nested: deep, tags: ['x'] };
    const tree = { total: 2, data: [item, 'scalar'], meta: { note: 'n' } };
    cutApart(tree);
    expect(tree).toEqual({ total: 2, data: null, meta: null });
    // The item lost what it held and kept its scalars; below it, nothing was walked.
    expect(item).toEqual({ id: 1, name: 'a', nested: null, tags: null });
    expect(deep).toEqual({ list: [7] });
  });

  it('cuts a list at the top of the tree, and leaves scalars and null alone', () => {
    const record = { id: 3, check: { status: 1 } };
    const list = [record, null, 5];
    cutApart(list);
    expect(list).toEqual([]);
    expect(record).toEqual({ id: 3, check: null });
    for (const scalar of [null, undefined, 0, 'text', true]) expect(() => cutApart(scalar)).not.toThrow();
  });

  it('leaves whole a tree it cannot cut, and goes on to the next', () => {
    const trees = new RequestTrees();
    const frozen = Object.freeze({ data: Object.freeze([{ id: 1 }]) });
    const plain = { data: [{ id: 2 }] };
    trees.keep(frozen);
    trees.keep(plain);
    expect(() => trees.release()).not.toThrow();
    expect(frozen.data).toHaveLength(1);
    expect(plain.data).toBeNull();
  });

  it('takes a text out of its holder once', () => {
    const holder = { text: '{"error":0}', status: 200 };
    expect(takeText(holder)).toBe('{"error":0}');
    expect(holder).toEqual({ text: '', status: 200 });
    expect(takeText(holder)).toBe('');
  });

  it("writes the answer's JSON, then cuts the result from its data", () => {
    const page = { nodes: [{ id: '1' }] };
    const result = { data: { protectionDevices: page }, extensions: { cost: 1 } };
    expect(stringifyAndCut(result)).toBe('{"data":{"protectionDevices":{"nodes":[{"id":"1"}]}},"extensions":{"cost":1}}');
    expect(result.data).toEqual({ protectionDevices: null });
    expect(stringifyAndCut({ data: null })).toBe('{"data":null}');
  });
});

describe('a client that keeps its answers for its request, against the reference service', () => {
  let stack: Stack;
  let transport: Transport;
  beforeAll(async () => {
    stack = await startStack();
    transport = new Transport({ baseUrl: stack.v1.url });
  });
  afterAll(async () => {
    await transport.close();
    await stack.close();
  });

  it('keeps every page it parsed, and releasing cuts those pages apart and no other', async () => {
    const trees = new RequestTrees();
    const kept = transport.client({ apiKey: DEMO_ADMIN_KEY, trees });
    const other = transport.client({ apiKey: DEMO_ADMIN_KEY });
    const first = await listProtectionDevices(kept, { limit: 3, offset: 0, order: 'id' });
    const second = await listProtectionDevices(kept, { limit: 2, offset: 3, order: 'id' });
    const elsewhere = await listProtectionDevices(other, { limit: 3, offset: 0, order: 'id' });
    const device = first.data[0]!;
    expect(device.check).not.toBeNull();
    expect(first.data).toHaveLength(3);
    expect(second.data).toHaveLength(2);

    trees.release();
    expect(first.data).toBeNull();
    expect(second.data).toBeNull();
    expect(first.total).toBeGreaterThan(3);
    expect(device.check).toBeNull();
    expect(device.id).toBe(1);
    // A client given no trees is not released by anyone: its answers stay whole.
    expect(elsewhere.data).toHaveLength(3);
    expect(elsewhere.data[0]!.check).not.toBeNull();
    // Released once: what the client parses afterwards is kept for a release of its own.
    const third = await listProtectionDevices(kept, { limit: 1, offset: 0, order: 'id' });
    trees.release();
    expect(third.data).toBeNull();
  });

  it('answers the same operation twice alike through the gateway: a request cuts only what it made itself', async () => {
    const query = `{ protectionDevices(first: 5) { totalCount nodes { id email organization { name } check { status webStat { datetime } chartStat { totalRequests } } } } }`;
    const headers = { 'x-service-token': DEMO_ADMIN_KEY };
    const answers = await Promise.all([postGraphQL(stack.gateway.url, { query }, headers), postGraphQL(stack.gateway.url, { query }, headers)]);
    const again = await postGraphQL(stack.gateway.url, { query }, headers);
    for (const answer of [...answers, again]) {
      expect(answer.status).toBe(200);
      expect(answer.errors).toBeUndefined();
      expect(answer.text).toBe(answers[0]!.text);
    }
    const nodes = (again.data as { protectionDevices: { nodes: { check: { webStat: unknown[] } }[] } }).protectionDevices.nodes;
    expect(nodes).toHaveLength(5);
    expect(nodes[0]!.check.webStat.length).toBeGreaterThan(0);
  });
});
