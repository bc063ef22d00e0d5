// The bench's soak (test/bench/soak.ts), short: the production bundle with the soak's settings
// (response cache, throttling, trusted documents enforced) in front of a reference service on a
// file database, under every surface's load at once for SOAK_S seconds on loopback, while
// entries are logged for the tail's subscribers. The same judgements as the bench's: no 5xx but
// the documented refusals, every answer one its surface may give, no key in any answer or log
// line, no answer crossing organizations, no foreign tail entry, every entry once and in order
// (the slow reader's included), refused sockets closed with 4403, flat memory. No timing is judged.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runSoak, soakGatewayEnv, soakShapes, soakText, writeSoakManifest } from '../bench/soak.ts';
import { evaluateSoakTargets } from '../bench/targets.ts';
import type { Shape } from '../bench/shapes.ts';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.ts';
import { startTestV1, type TestV1 } from '../helpers/v1.ts';

const SOAK_S = 40;
/** Device 1 holds the burst: the stalled download's file is larger than the sockets' buffers. */
const SEED_SIZES = { devices: 24, traffic: 2_000, hotTraffic: 150_000 };

const dir = mkdtempSync(join(tmpdir(), 'soak-'));
let v1: TestV1;
let gateway: GatewayProcess;
let shapes: Shape[];

beforeAll(async () => {
  v1 = await startTestV1({ seed: 'demo', database: join(dir, 'v1.sqlite'), seedSizes: SEED_SIZES });
  shapes = await soakShapes(v1.url);
  gateway = await startGatewayProcess('bundle', { ...soakGatewayEnv(writeSoakManifest(dir, shapes)), NODE_ENV: 'production', UPSTREAM_URL: v1.url });
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  await v1?.close();
  rmSync(dir, { recursive: true, force: true });
});

it(`holds ${SOAK_S} s of every surface at once`, async () => {
  const lines: string[] = [];
  const figures = await runSoak(
    { shapes, gatewayUrl: gateway.url, gatewayPid: gateway.pid, v1Url: v1.url, databasePath: join(dir, 'v1.sqlite'), durationS: SOAK_S, gatewayLog: () => gateway.output.stdout, stallDeviceId: '1' },
    (line) => lines.push(line),
  );
  const report = [...lines, ...soakText(figures)].join('\n');
  for (const check of evaluateSoakTargets(figures)) expect(check.met, `${check.name}: ${check.detail}\n${report}`).toBe(true);
  // Every surface was reached, and the refusals the mix provokes happened.
  for (const surface of ['dashboard device-page', 'dashboard frameworks', 'dashboard traffic-one', 'mutation', 'throttled key', 'untrusted document', 'refused key', 'export link', 'export download']) {
    expect(Object.keys(figures.outcomes), report).toContain(surface);
  }
  expect(figures.outcomes['throttled key']?.['429 RATE_LIMITED'], report).toBeGreaterThan(0);
  expect(figures.exports.stalledStarted, report).toBeGreaterThan(0);
}, (SOAK_S + 120) * 1000);
