import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertV1Response } from './helpers/openapi.ts';
import { TEST_KEYS, dbRows, startTestV1, v1Request } from './helpers/v1.ts';
import type { TestV1, V1Response } from './helpers/v1.ts';

const CREATE = '/api/v1/V-Ciso/security-frameworks';
const MiB = 1024 * 1024;

let service: TestV1;

beforeAll(async () => {
  service = await startTestV1();
  // Record 1 exists: an edit of a record that does not is 404 before its body is read.
  await service.store.insertWebProtectionRecord({
    organizationId: 1,
    email: 'ops@acme.example',
    fqdn: 'shop.acme.example',
    endpoint: '203.0.113.9',
    services: ['waf'],
    check: { stat: { fqdn: 1, proxy: 1, endpoint: 1, datetime: '2026-11-20T00:00:00Z' }, status: 1, web_stat: [] },
  });
});
afterAll(async () => {
  await service?.close();
});

function expectFailure(response: V1Response, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(response.json).toEqual({ error: 1, messages: [{ code, message: expect.any(String) }] });
}

/**
 * A request through node:http, for what fetch cannot send: a Content-Length without the body
 * behind it, or a body that keeps coming.
 */
function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
  write: (req: ReturnType<typeof request>) => void,
): Promise<{ status: number; headers: Headers; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${service.url}${path}`, { method, headers: { 'X-Service-Token': TEST_KEYS.admin, ...headers } });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const received = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') received.set(name, value);
        const response = { status: res.statusCode ?? 0, headers: received, body };
        assertV1Response({ method, url: path }, response);
        resolve(response);
      });
    });
    req.on('error', reject);
    write(req);
  });
}

describe('envelope', () => {
  it('wraps a success in error 0 and empty messages, as JSON', async () => {
    const response = await v1Request(service, 'GET', '/api/v1/organizations/1/security-frameworks');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.json).toEqual({ error: 0, messages: [], total: 0, data: [] });
    expect(Object.keys(response.json).slice(0, 2)).toEqual(['error', 'messages']);
  });
});

describe('routing', () => {
  it('answers 404 not_found for unknown routes', async () => {
    for (const path of ['/', '/api/v1', '/api/v2/V-Ciso/security-frameworks', '/api/v1/cloud-defender/', '/api/v1/cloud-defender/1/extra', '/api/v1/v-ciso/security-frameworks']) {
      expectFailure(await v1Request(service, 'GET', path), 404, 'not_found');
    }
  });

  it('answers 405 method_not_allowed with Allow for a known path and another method', async () => {
    const cases: [string, string, string][] = [
      ['GET', CREATE, 'POST'],
      ['DELETE', CREATE, 'POST'],
      ['POST', '/api/v1/organizations/1/security-frameworks', 'GET'],
      ['PATCH', '/api/v1/organizations/1/security-frameworks/1', 'DELETE, PUT'],
      ['POST', '/api/v1/cloud-defender/1', 'DELETE, GET, PUT'],
      ['PATCH', '/api/v1/cloud-defender/abc', 'DELETE, GET, PUT'],
      ['POST', '/api/v1/cloud-defender', 'GET'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await v1Request(service, method, path);
      expectFailure(response, 405, 'method_not_allowed');
      expect(response.headers.get('allow')).toBe(allow);
    }
  });

  it('ignores the query string when routing', async () => {
    const response = await v1Request(service, 'GET', '/api/v1/organizations/1/security-frameworks?whatever=1');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ error: 0, messages: [], total: 0, data: [] });
  });
});

describe('request bodies', () => {
  const valid = { title: 'Sized', security_frameworks: [] };

  it('answers 413 at once when Content-Length is over 1 MiB, without waiting for the body', async () => {
    const response = await rawRequest('POST', `${CREATE}?organization=1`, { 'Content-Type': 'application/json', 'Content-Length': String(50 * MiB) }, (req) =>
      req.flushHeaders(),
    );
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toEqual({ error: 1, messages: [{ code: 'payload_too_large', message: expect.any(String) }] });
  });

  it('answers 413 to a body over 1 MiB, sized or streamed', async () => {
    const sized = await v1Request(service, 'POST', `${CREATE}?organization=1`, {
      rawBody: ' '.repeat(MiB + 1),
      headers: { 'Content-Type': 'application/json' },
    });
    expectFailure(sized, 413, 'payload_too_large');

    // Chunked, with no length announced: cut off once it passes the limit.
    const streamed = await rawRequest('PUT', '/api/v1/cloud-defender/1', { 'Content-Type': 'application/json' }, (req) => {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = (): void => {
        while (sent < 40) {
          sent++;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      req.on('error', () => {});
      pump();
    });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).messages[0].code).toBe('payload_too_large');

    // The service is still there for the next client.
    expect((await v1Request(service, 'GET', '/api/v1/organizations/1/security-frameworks')).status).toBe(200);
  });

  it('accepts a body of exactly 1 MiB', async () => {
    const json = JSON.stringify(valid);
    const response = await v1Request(service, 'POST', `${CREATE}?organization=1`, {
      rawBody: json + ' '.repeat(MiB - Buffer.byteLength(json)),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.status).toBe(201);
    expect(response.json).toEqual({ error: 0, messages: [], security_framework: expect.any(Number) });
  });

  it('answers 415 to a body sent as anything but JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx']) {
      const response = await v1Request(service, 'POST', `${CREATE}?organization=1`, { rawBody: JSON.stringify(valid), headers: { 'Content-Type': type } });
      expectFailure(response, 415, 'unsupported_media_type');
    }
    // fetch sends a string body as text/plain when no type is given.
    expectFailure(await v1Request(service, 'PUT', '/api/v1/cloud-defender/1', { rawBody: '{}' }), 415, 'unsupported_media_type');
  });

  it('accepts JSON content types with parameters and +json types', async () => {
    for (const type of ['application/json; charset=utf-8', 'APPLICATION/JSON', 'application/vnd.api+json']) {
      const response = await v1Request(service, 'POST', `${CREATE}?organization=1`, { rawBody: JSON.stringify(valid), headers: { 'Content-Type': type } });
      expect(response.status).toBe(201);
    }
  });

  it('answers 400 invalid_json to malformed JSON and to bytes that are not UTF-8', async () => {
    for (const raw of ['{', '{"title": "x",}', '{"a":1} trailing', "{'title':'x'}", Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])]) {
      const response = await v1Request(service, 'POST', `${CREATE}?organization=1`, { rawBody: raw, headers: { 'Content-Type': 'application/json' } });
      expectFailure(response, 400, 'invalid_json');
    }
  });
});

describe('unexpected failures', () => {
  it('answers 500 internal without internals, and logs the real error without the key', async () => {
    const broken = await startTestV1();
    try {
      const id = await broken.store.insertWebProtectionRecord({
        organizationId: 1,
        email: 'a@example.com',
        fqdn: 'a.example.com',
        endpoint: '192.0.2.1',
        services: [],
        check: { stat: { fqdn: 1, proxy: 1, endpoint: 1, datetime: '2026-11-20T00:00:00Z' }, status: 1, web_stat: [] },
      });
      await dbRows(broken, 'DROP TABLE web_protection_records');
      const response = await v1Request(broken, 'PUT', `/api/v1/cloud-defender/${id}`, { token: TEST_KEYS.org1, body: { fqdn: 'b.example.com' } });
      expect(response.status).toBe(500);
      expect(response.json).toEqual({ error: 1, messages: [{ code: 'internal', message: expect.any(String) }] });
      for (const leak of ['web_protection', 'SQL', 'sqlite', 'table', 'at ', '/work', '.ts', TEST_KEYS.org1]) {
        expect(response.body).not.toContain(leak);
      }
      expect(broken.logs.join('\n')).toMatch(/no such table: web_protection_records|relation "web_protection_records" does not exist/);
      for (const key of Object.values(TEST_KEYS)) expect(broken.logs.join('\n')).not.toContain(key);
    } finally {
      await broken.close();
    }
  });
});
