// A time window's export: createTrafficExport with `from`/`to`, downloaded from its link, is the
// same bytes as the v1 service's own export of the same entries (its header, quoting, `extra` as
// JSON, line ends), in both orders and both formats, with search and actions; named for the window;
// written page by page, so a client that stops reading stops the reading upstream, and one that
// leaves ends it.
import { get, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng, insertTraffic, makeLiveTrafficEntry } from 'reference-service/testing';
import { postGraphQL, startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';
import { until } from '../../helpers/subscriptions.ts';
import { v1Request } from '../../helpers/v1.ts';

const CREATE = `mutation Export($deviceId: ID!, $format: TrafficExportFormat!, $filter: TrafficLogFilter, $orderBy: TrafficLogOrder) {
  createTrafficExport(deviceId: $deviceId, format: $format, filter: $filter, orderBy: $orderBy) { export { url format expiresAt } }
}`;
const DEVICE = '2';
/** The device the seeding gives a hundred thousand entries on its last day. */
const BUSY_DEVICE = '1';
const WINDOW = { from: '2026-11-25T10:00:00Z', to: '2026-11-25T10:20:00Z' };

let stack: Stack;

async function createExport(variables: Record<string, unknown>) {
  const response = await postGraphQL<{ createTrafficExport: { export: { url: string } } | null }>(stack.gateway.url, { query: CREATE, variables }, { 'x-service-token': TEST_KEYS.admin });
  return response;
}

/** The ids of the device's entries in the window, in `order`, as v1 pages them. */
async function windowIds(order: string, filter: { search?: string; actions?: readonly string[] }, window: { from: string; to: string }): Promise<number[]> {
  const ids: { id: number; date_time: string }[] = [];
  for (let offset = 0; ; offset += 1000) {
    const query = new URLSearchParams({ limit: '1000', offset: String(offset), order });
    if (filter.search) query.set('search', filter.search);
    for (const action of filter.actions ?? []) query.append('actions[]', action);
    const page = await v1Request(stack.v1, 'GET', `/api/v1/atb/${DEVICE}/traffic?${query}`, { token: TEST_KEYS.admin });
    ids.push(...page.json.data);
    if (ids.length >= page.json.total) break;
  }
  return ids.filter((e) => Date.parse(e.date_time) >= Date.parse(window.from) && Date.parse(e.date_time) < Date.parse(window.to)).map((e) => e.id);
}

/** v1's own export of the device under the filter and order, cut to the window's entries (by id). */
async function upstreamExportOf(format: 'csv' | 'ndjson', order: string, filter: { search?: string; actions?: readonly string[] }, ids: number[]): Promise<string> {
  const query = new URLSearchParams({ export: format, order });
  if (filter.search) query.set('search', filter.search);
  for (const action of filter.actions ?? []) query.append('actions[]', action);
  const response = await fetch(`${stack.v1.url}/api/v1/atb/${DEVICE}/traffic?${query}`, { headers: { 'x-service-token': TEST_KEYS.admin } });
  const text = await response.text();
  if (format === 'ndjson') {
    const byId = new Map(text.split('\n').filter(Boolean).map((line) => [(JSON.parse(line) as { id: number }).id, `${line}\n`]));
    return ids.map((id) => byId.get(id)!).join('');
  }
  // A CSV record starts at a line that begins with its id and a quoted field; records are in the export's order.
  const header = text.slice(0, text.indexOf('\r\n') + 2);
  const starts = [...text.matchAll(/\r\n(\d+),"/g)].map((match) => ({ id: Number(match[1]), at: match.index + 2 }));
  const records = new Map(starts.map((start, i) => [start.id, text.slice(start.at, starts[i + 1]?.at ?? text.length)]));
  return header + ids.map((id) => records.get(id)!).join('');
}

beforeAll(async () => {
  stack = await startStack({ v1: { seedSizes: { devices: 4, traffic: 400, hotTraffic: 100_000 } }, key: TEST_KEYS.admin });
  // Twenty minutes of traffic on the device, several entries a second, some with text that CSV must quote.
  const rng = createRng(4);
  const start = Date.parse('2026-11-25T09:55:00Z');
  for (let i = 0; i < 3000; i++) {
    const at = new Date(start + Math.floor(i / 2.4) * 1000);
    const entry = makeLiveTrafficEntry(rng, Number(DEVICE), at);
    const odd = i % 97 === 0;
    insertTraffic(stack.v1.db, {
      ...entry,
      date_time: at.toISOString().replace('.000Z', 'Z'),
      ...(odd ? { log_message: `GET /search?q="a,b"\r\nnext line — ünïcode "quoted"`, extra: { ...entry.extra, note: 'say "hi", then\nleave' } } : {}),
    });
  }
}, 300_000);
afterAll(async () => {
  await stack?.close();
});

describe('the export of a time window', () => {
  const cases = [
    ['CSV', 'csv', 'ASC', {}],
    ['CSV', 'csv', 'DESC', { search: 'GET', actions: ['allow', 'block'] }],
    ['NDJSON', 'ndjson', 'DESC', {}],
    ['NDJSON', 'ndjson', 'ASC', { actions: ['block'] }],
  ] as const;
  for (const [format, extension, direction, filter] of cases) {
    it(`${format} ${direction} ${JSON.stringify(filter)}: the upstream export's bytes for the same entries, named for the window`, async () => {
      const order = direction === 'ASC' ? 'date_time' : '-date_time';
      const ids = await windowIds(order, filter, WINDOW);
      expect(ids.length).toBeGreaterThan(direction === 'ASC' && format === 'NDJSON' ? 10 : 300);
      const expected = await upstreamExportOf(extension, order, filter, ids);
      const created = await createExport({ deviceId: DEVICE, format, filter: { ...filter, ...WINDOW }, orderBy: { field: 'DATE_TIME', direction } });
      expect(created.errors).toBeUndefined();
      const response = await fetch(created.data!.createTrafficExport!.export.url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(format === 'CSV' ? 'text/csv; charset=utf-8' : 'application/x-ndjson');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="traffic-${DEVICE}-20251125T100000Z-20251125T102000Z.${extension}"`.replace(/2025/g, '2026'));
      const body = Buffer.from(await response.arrayBuffer());
      expect(body.equals(Buffer.from(expected)), 'byte for byte').toBe(true);
      if (format === 'CSV') expect(body.toString()).toContain('"GET /search?q=""a,b""\r\nnext line');
    });
  }

  it('is an empty file (the CSV header alone) for an empty window, and names an open end', async () => {
    const created = await createExport({ deviceId: DEVICE, format: 'CSV', filter: { from: '2026-11-26T00:00:00Z' }, orderBy: { field: 'DATE_TIME' } });
    const response = await fetch(created.data!.createTrafficExport!.export.url);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="traffic-${DEVICE}-from-20261126T000000Z.csv"`);
    expect(await response.text()).toBe('id,date_time,type,src_ip,dest_ip,dest_port,log_message,extra\r\n');
  });

  it('refuses a window with another order before any call', async () => {
    stack.proxy.reset();
    const refused = await createExport({ deviceId: DEVICE, format: 'CSV', filter: WINDOW, orderBy: { field: 'SRC_IP' } });
    expect(refused.errors?.map((e) => [e.extensions?.code, e.extensions?.field])).toEqual([['BAD_USER_INPUT', 'orderBy']]);
    expect(stack.proxy.lines()).toEqual([]);
  });

  it('reads the upstream only as fast as the client takes the file, and stops when it leaves', async () => {
    const wide = { from: '2026-11-20T00:00:00Z', to: '2026-11-21T00:00:00Z' };
    const created = await createExport({ deviceId: BUSY_DEVICE, format: 'NDJSON', filter: wide, orderBy: { field: 'DATE_TIME' } });
    const pages = () => stack.proxy.lines().filter((line) => line.includes('/traffic?limit=1000'));
    stack.proxy.reset();
    // A client that takes the first chunk, then stops reading for a while.
    const response = await new Promise<IncomingMessage>((resolve, reject) => get(created.data!.createTrafficExport!.export.url, resolve).on('error', reject));
    await new Promise<void>((resolve) => response.once('data', () => resolve()));
    response.pause();
    // The window holds a hundred pages of a thousand: a paused client holds the reading once the
    // buffers between it and the gateway (the sockets' among them) are full.
    let paused = -1;
    for (let waited = 0; waited < 15_000 && pages().length !== paused; waited += 1_000) {
      paused = pages().length;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    expect(pages().length).toBe(paused);
    expect(paused).toBeLessThan(50);
    response.destroy();
    await until(() => stack.logs.some((line) => line.includes('"outcome":"client_gone"')), 5_000, 'the export log line');
    const after = pages().length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pages().length).toBe(after);
    expect(after).toBeLessThan(50);
  });
});
