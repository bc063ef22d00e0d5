// docs/analysts.md, run as written against the gateway in front of the reference
// service with the demo data: each GraphQL block of the section is sent as it stands (the last
// hour's `from` computed as the section says), and its answer checked against what the v1
// service itself holds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng, insertTraffic, makeLiveTrafficEntry } from 'reference-service/testing';
import { postGraphQL, startStack, type Stack } from '../helpers/gateway.ts';
import { REPO } from '../helpers/start-command.ts';
import { v1Request } from '../helpers/v1.ts';

const section = readFileSync(join(REPO, 'docs', 'analysts.md'), 'utf8');
const blocks = [...section.matchAll(/```graphql\n([\s\S]*?)```/g)].map((match) => match[1]!);
const named = (name: string) => {
  const block = blocks.find((text) => new RegExp(`^(query|mutation) ${name}\\b`).test(text));
  expect(block, name).toBeDefined();
  return block!;
};

let stack: Stack;
const send = (query: string, variables: Record<string, unknown> = {}, key = 'demo-admin-key') =>
  postGraphQL<any>(stack.gateway.url, { query, variables }, { 'x-service-token': key });

beforeAll(async () => {
  // The demo data as `npm start` seeds it, and what its traffic simulator would have logged on
  // device 1 in the last hour, and during the section's incident.
  stack = await startStack({ v1: { seedSizes: { devices: 60, traffic: 40_000, hotTraffic: 0 } } });
  const rng = createRng(2026);
  for (let i = 0; i < 1500; i++) insertTraffic(stack.v1.db, makeLiveTrafficEntry(rng, 1, new Date(Date.now() - 3_000_000 + i * 1_000)));
  for (let i = 0; i < 300; i++) insertTraffic(stack.v1.db, makeLiveTrafficEntry(rng, 1, new Date(Date.parse('2026-11-20T22:00:00Z') + i * 12_000)));
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

describe('the analysts’ guide, as written', () => {
  it('holds the three operations', () => {
    expect(blocks).toHaveLength(3);
  });

  it('the last hour of WAF blocks on a device', async () => {
    const from = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const response = await send(named('LastHourOfWafBlocks'), { deviceId: '1', from });
    expect(response.errors).toBeUndefined();
    const log = response.data.trafficLog;
    // What v1 holds: the device's WAF blocks, newest first, cut at the hour.
    const truth = await v1Request(stack.v1, 'GET', '/api/v1/atb/1/traffic?limit=1000&order=-date_time&search=waf&actions[]=block', { token: 'demo-admin-key' });
    const expected = (truth.json.data as { date_time: string; log_message: string }[]).filter((e) => Date.parse(e.date_time) >= Date.parse(from));
    expect(expected.length).toBeGreaterThan(0);
    expect(log.totalCount).toBe(expected.length);
    expect(log.nodes.map((n: { logMessage: string }) => n.logMessage)).toEqual(expected.slice(0, 100).map((e) => e.log_message));
    for (const node of log.nodes) expect(String(node.extra.action).toLowerCase()).toBe('block');
  });

  it('an incident window as a file', async () => {
    const response = await send(named('IncidentExport'));
    expect(response.errors).toBeUndefined();
    const download = await fetch(response.data.createTrafficExport.export.url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="traffic-1-20261120T220000Z-20261120T230000Z.csv"');
    const rows = (await download.text()).split('\r\n').filter(Boolean);
    const truth = await v1Request(stack.v1, 'GET', '/api/v1/atb/1/traffic?limit=1000&order=date_time', { token: 'demo-admin-key' });
    const inWindow = (truth.json.data as { id: number; date_time: string }[]).filter(
      (e) => Date.parse(e.date_time) >= Date.parse('2026-11-20T22:00:00Z') && Date.parse(e.date_time) < Date.parse('2026-11-20T23:00:00Z'),
    );
    expect(inWindow.length).toBeGreaterThanOrEqual(300);
    expect(rows[0]).toBe('id,date_time,type,src_ip,dest_ip,dest_port,log_message,extra');
    expect(rows.slice(1).map((row) => Number(row.split(',')[0]))).toEqual(inWindow.map((e) => e.id));
  });

  it('the protected applications of an organization, and of every one for an admin key', async () => {
    for (const [key, organization] of [['demo-org1-key-acme', 1], ['demo-admin-key', null]] as const) {
      const response = await send(named('ProtectedApplications'), {}, key);
      expect(response.errors).toBeUndefined();
      const truth = await v1Request(stack.v1, 'GET', '/api/v1/cloud-defender?limit=500', { token: key });
      const expected = truth.json.data as { id: number; fqdn: string; organization: { id: number } }[];
      if (organization !== null) for (const record of expected) expect(record.organization.id).toBe(organization);
      expect(expected.length).toBeGreaterThan(0);
      expect(response.data.webProtectionRecords.totalCount).toBe(expected.length);
      expect(response.data.webProtectionRecords.nodes.map((n: { id: string; fqdn: string }) => [n.id, n.fqdn])).toEqual(expected.slice(0, 50).map((r) => [String(r.id), r.fqdn]));
    }
  });
});
