// What an adversarial round found in the reference service, each reproduced over real HTTP:
// error answers that amplified a request some forty times, refusals a client never got to read,
// text stored other than it was sent, and one slow export that stalled every other request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { startTestV1, TEST_KEYS, v1Request, expectV1Failure, type TestV1 } from './helpers/v1.ts';
import { insertWebProtectionRecord } from '../src/storage/web-protection.ts';
import { insertFramework } from '../src/storage/frameworks.ts';

let v1: TestV1;
let recordId: number;
let frameworkId: number;

beforeAll(async () => {
  // Demo data: devices with traffic (device 1 gets the hot entries the export test reads).
  v1 = await startTestV1({ seed: 'demo', seedSizes: { devices: 4, traffic: 200, hotTraffic: 30_000 } });
  recordId = insertWebProtectionRecord(v1.db, {
    organizationId: 1,
    fqdn: 'shop.acme.example',
    email: 'ops@acme.example',
    endpoint: '203.0.113.9',
    services: ['waf'],
    check: { stat: { fqdn: 1, proxy: 1, endpoint: 1, datetime: '2026-11-20T00:00:00Z' }, status: 1, web_stat: [] },
  });
  frameworkId = insertFramework(v1.db, 1, { title: 'Hardening', security_frameworks: [] });
});
afterAll(async () => {
  await v1?.close();
});

const headers = { 'x-service-token': TEST_KEYS.admin, 'content-type': 'application/json' };

describe('error answers are bounded', () => {
  it('a 1 MiB edit with 262,000 bad services: one message, a small answer (not one per item)', async () => {
    const body = JSON.stringify({ services: Array(262_000).fill('x') });
    expect(body.length).toBeGreaterThan(1_000_000);
    const response = await v1Request(v1, 'PUT', `/api/v1/cloud-defender/${recordId}`, { rawBody: body, headers: { 'content-type': 'application/json' } });
    expectV1Failure(response, 400, [{ code: 'validation_failed', field: 'services' }]);
    expect(response.body.length).toBeLessThan(1_000);
  });

  it('eight such edits at once leave the service small and answering', async () => {
    const before = process.memoryUsage().rss;
    const body = JSON.stringify({ services: Array(262_000).fill('x') });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => fetch(`${v1.url}/api/v1/cloud-defender/${recordId}`, { method: 'PUT', headers, body }).then((r) => r.text())),
    );
    expect(answers.every((text) => text.length < 1_000)).toBe(true);
    // The service runs in this process: eight requests of 1 MiB cost tens of megabytes, not gigabytes.
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
  });

  it('a body with 60,000 unknown fields lists 50 of them, then how many more', async () => {
    const fields = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`f${i}`, 1]));
    const response = await v1Request(v1, 'PUT', `/api/v1/organizations/1/security-frameworks/${frameworkId}`, {
      body: { title: 't', security_frameworks: [], ...fields },
    });
    expect(response.status).toBe(400);
    expect(response.json.messages).toHaveLength(51);
    expect(response.json.messages[50]).toEqual({
      code: 'too_many_errors',
      message: '59950 more problems were found and are not listed; correct the ones above and send again.',
    });
    expect(response.body.length).toBeLessThan(8_000);
  });

  it('an id that does not exist is 404 before the body is read or checked', async () => {
    const bad = { services: Array(1_000).fill('x') };
    expectV1Failure(await v1Request(v1, 'PUT', '/api/v1/cloud-defender/999999', { body: bad }), 404, [{ code: 'not_found' }]);
    expectV1Failure(await v1Request(v1, 'PUT', '/api/v1/organizations/1/security-frameworks/999999', { body: { title: '' } }), 404, [
      { code: 'not_found' },
    ]);
  });
});

describe('refusals the client can read', () => {
  it('a 10 MB body: each of 30 fetch clients reads its 413 envelope (the body is drained, not cut)', async () => {
    const body = 'x'.repeat(10 * 1024 * 1024);
    const outcomes: string[] = [];
    for (let i = 0; i < 30; i++) {
      outcomes.push(
        await fetch(`${v1.url}/api/v1/cloud-defender/${recordId}`, { method: 'PUT', headers, body }).then(
          async (response) => `${response.status} ${((await response.json()) as { messages: { code: string }[] }).messages[0]!.code}`,
          (error: unknown) => `failed: ${String((error as { cause?: unknown }).cause ?? error)}`,
        ),
      );
    }
    expect(new Set(outcomes)).toEqual(new Set(['413 payload_too_large']));
  });

  it('an over-long URL (22 KB of actions[]) gets a JSON envelope, not a bare 431', async () => {
    const actions = Array.from({ length: 2_000 }, (_, i) => `actions[]=block${i}`).join('&');
    expect(actions.length).toBeGreaterThan(22_000);
    const response = await fetch(`${v1.url}/api/v1/atb/1/traffic?${actions}`, { headers });
    expect(response.status).toBe(431);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({
      error: 1,
      messages: [{ code: 'request_too_long', message: 'The request line and headers are longer than 16 KiB: send fewer or shorter query parameters.' }],
    });
  });
});

describe('text is stored as sent, or refused', () => {
  const raw = (json: string) => ({ rawBody: json, headers: { 'content-type': 'application/json' } });

  it('a lone surrogate in a framework title: 400 naming title, nothing stored', async () => {
    const response = await v1Request(v1, 'POST', '/api/v1/V-Ciso/security-frameworks?organization=1', raw('{"title":"x\\ud800y","security_frameworks":[]}'));
    expectV1Failure(response, 400, [{ code: 'validation_failed', field: 'title' }]);
    const list = await v1Request(v1, 'GET', '/api/v1/organizations/1/security-frameworks');
    expect(list.body).not.toContain('\ufffd');
  });

  it("in a control's details key, and in a web protection fqdn: 400 naming the place", async () => {
    const control = '{"id":"C-1","type":"t","title":"t","weight":1,"frequency":"0 9 * * 1","evidence_type":"e","details":{"k\\udc00":1}}';
    const framework = await v1Request(v1, 'PUT', `/api/v1/organizations/1/security-frameworks/${frameworkId}`, raw(`{"title":"t","security_frameworks":[${control}]}`));
    expectV1Failure(framework, 400, [{ code: 'validation_failed', field: 'security_frameworks.0.details.k\udc00' }]);
    const record = await v1Request(v1, 'PUT', `/api/v1/cloud-defender/${recordId}`, raw('{"fqdn":"a\\ud800.example"}'));
    expectV1Failure(record, 400, [{ code: 'validation_failed', field: 'fqdn' }]);
  });

  it('a search percent-encoding a lone surrogate (or bytes that are not UTF-8): 400 naming search', async () => {
    for (const search of ['%ED%A0%80', '%FF']) {
      expectV1Failure(await v1Request(v1, 'GET', `/api/v1/atb/1/traffic?search=${search}`), 400, [{ code: 'validation_failed', field: 'search' }]);
    }
  });
});

describe('a slow export', () => {
  it('on an in-memory database, other requests answer while a client reads an export slowly', async () => {
    const url = new URL(`${v1.url}/api/v1/atb/1/traffic?export=csv`);
    let firstBytes = 0;
    const slow = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers: { 'x-service-token': TEST_KEYS.admin } }, resolve);
      req.on('error', reject);
      req.end();
    });
    expect(slow.statusCode).toBe(200);
    // Read a little, then stop reading: the service's socket fills and its export waits.
    slow.once('data', (chunk: Buffer) => {
      firstBytes = chunk.length;
      slow.pause();
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(firstBytes).toBeGreaterThan(0);
    const started = performance.now();
    const others = await Promise.all([
      v1Request(v1, 'GET', '/api/v1/atb?limit=5'),
      v1Request(v1, 'GET', '/api/v1/atb/2/traffic?limit=5'),
      v1Request(v1, 'PUT', `/api/v1/cloud-defender/${recordId}`, { body: { services: ['waf', 'cdn'] } }),
    ]);
    expect(others.map((response) => response.status)).toEqual([200, 200, 200]);
    // A generous bound: before, they failed "busy" or waited for the reader.
    expect(performance.now() - started).toBeLessThan(2_000);
    slow.destroy();
  });
});
