// `MCP=1 npm start` as an operator runs it: the production bundle (dist/main.js, built by the
// start script's build) in front of the embedded reference service, spoken to by the official MCP
// SDK's client over Streamable HTTP. The default operations ship with the bundle (found from the
// project's root, not from the source tree's layout), the banner says where /mcp is, a bad
// operation file stops the start with one line, and SIGTERM still stops it cleanly.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_ADMIN_KEY } from '../helpers/gateway.ts';
import { BUNDLE, startEnv, startFlags } from '../helpers/start-command.ts';

const START_TIMEOUT_MS = 30_000;
const children: ChildProcess[] = [];
const dirs: string[] = [];

interface Run {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  /** The GraphQL URL, once the gateway says it is ready; rejects if it exits first. */
  ready: Promise<string>;
  exited: Promise<number | null>;
}

function start(env: Record<string, string>): Run {
  const cwd = mkdtempSync(join(tmpdir(), 'gateway-mcp-'));
  dirs.push(cwd);
  const child = fork(BUNDLE, [], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, PORT: '0', LOG_LEVEL: 'warn', V1_DATABASE: ':memory:', V1_SEED_DEVICES: '12', V1_SEED_TRAFFIC: '300', ...startEnv(), ...env },
    execArgv: startFlags(),
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  children.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time; stderr: ${output.stderr}`)), START_TIMEOUT_MS);
    child.on('message', (message: { type?: string; url?: string }) => {
      if (message.type === 'ready' && message.url) {
        clearTimeout(timer);
        resolve(message.url);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}; stderr: ${output.stderr}`));
    });
  });
  return { child, output, ready, exited };
}

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('MCP=1 with the production bundle', () => {
  it('serves the default tools at /mcp, says so in its banner, and stops on SIGTERM', async () => {
    const run = start({ MCP: '1' });
    const url = await run.ready;
    expect(run.output.stdout).toMatch(/^MCP tools for assistants at http:\/\/localhost:\d+\/mcp \(Streamable HTTP\)$/m);
    const client = new Client({ name: 'system-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { 'x-service-token': DEMO_ADMIN_KEY } } }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['FrameworkEvidenceState', 'LatestDeviceTraffic', 'SearchDeviceTraffic', 'TopMaliciousDevices']);
    const devices = (await client.callTool({ name: 'TopMaliciousDevices', arguments: {} })) as CallToolResult;
    expect(devices.isError).toBeFalsy();
    const list = (devices.structuredContent as any).protectionDevices;
    expect(list.totalCount).toBe(12);
    expect(list.nodes[0].check.chartStat.length).toBeGreaterThan(0);
    const latest = (await client.callTool({ name: 'LatestDeviceTraffic', arguments: { deviceId: list.nodes[0].id, count: 3 } })) as CallToolResult;
    expect(latest.isError).toBeFalsy();
    expect((latest.structuredContent as any).protectionDevice.traffic.nodes.length).toBeGreaterThan(0);
    await client.close();
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  }, 60_000);

  it('stops the start with one line naming a bad operation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-mcp-ops-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'tools.graphql'), '# Lists devices.\nquery Devices { protectionDevices { totalCount nope } }\n');
    const run = start({ MCP: '1', MCP_OPERATIONS: join(dir, 'tools.graphql') });
    await expect(run.ready).rejects.toThrow(/exited with 1/);
    // The first start's progress line (seeding the embedded demo) comes before; the refusal is one line.
    expect(run.output.stderr.trim().split('\n').filter((line) => !line.startsWith('seeding the demo data'))).toEqual([
      `MCP_OPERATIONS: ${join(dir, 'tools.graphql')}:2: operation "Devices" is invalid: Cannot query field "nope" on type "ProtectionDeviceConnection". Did you mean "nodes"?`,
    ]);
  }, 60_000);
});
