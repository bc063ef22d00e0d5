// The gateway's HTTP server as a client meets it: operator endpoints, unknown paths, CORS, CSRF
// prevention, the body-size limit, slow clients cut by the header and request timeouts, and a
// client that goes away cancelling the upstream calls made for it.
import { request } from 'node:http';
import { connect } from 'node:net';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseGatewayConfig } from '../../../src/gateway/config.ts';
import type { Gateway } from '../../../src/gateway/server.ts';
import { byPath, huge, json, notJson, refusedUrl, slow, startFaultUpstream, type FaultUpstream } from '../../helpers/fault-upstream.ts';
import { postGraphQL, startGatewayOn, startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';
import { CreateFrameworkDocument, FrameworkDocument } from '../../generated/operations.ts';

const BODY_LIMIT = 64 * 1024;
const HEADERS_TIMEOUT_MS = 300;
const REQUEST_TIMEOUT_MS = 600;
const APP_ORIGIN = 'https://app.example.com';
const SANDBOX_ORIGIN = 'https://sandbox.embed.apollographql.com';
const FRAMEWORK_COUNT = 'query FrameworkCount { securityFrameworks(organizationId: "1") { totalCount } }';

let stack: Stack;
/**
 * A gateway in front of a scripted upstream, with a long upstream deadline (only a cancel ends a
 * call early) and short client timeouts.
 */
let faulty: { upstream: FaultUpstream; gateway: Gateway; logs: string[] };
/** A gateway whose upstream does not listen. */
let orphan: Gateway;

beforeAll(async () => {
  stack = await startStack({
    v1: { seed: 'none' },
    key: TEST_KEYS.admin,
    gateway: parseGatewayConfig({
      BODY_LIMIT_BYTES: String(BODY_LIMIT),
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      CORS_ORIGINS: APP_ORIGIN,
    }),
  });
  const upstream = await startFaultUpstream();
  const { gateway, logs } = await startGatewayOn(upstream.url, {
    UPSTREAM_TIMEOUT_MS: '60000',
    HEADERS_TIMEOUT_MS: '300',
    REQUEST_TIMEOUT_MS: '500',
  });
  faulty = { upstream, gateway, logs };
  orphan = (await startGatewayOn(await refusedUrl())).gateway;
});

afterAll(async () => {
  await faulty?.gateway.close();
  await faulty?.upstream.close();
  await orphan?.close();
  await stack?.close();
});

function origin(gateway: Gateway): string {
  return new URL(gateway.url).origin;
}

/**
 * Opens a raw connection, sends `head` at once, then `drip` one byte every 40 ms. Resolves when
 * the server closes the connection (or after `giveUpMs`), with what it answered and how much of
 * `drip` had been sent.
 */
function slowClient(port: number, head: string, drip: string, giveUpMs = 8_000) {
  return new Promise<{ closedByServer: boolean; answer: string; dripped: number }>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let dripped = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      resolve({ closedByServer: false, answer, dripped });
    }, giveUpMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ closedByServer: true, answer, dripped });
    });
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (dripped < drip.length && !socket.destroyed) socket.write(drip[dripped++]!);
      }, 40);
    });
  });
}

describe('operator endpoints and paths', () => {
  it('answers /healthz while the process is up, even when the upstream is down', async () => {
    for (const gateway of [stack.gateway, orphan]) {
      const response = await fetch(`${origin(gateway)}/healthz`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      // And which build: what an operator checks first after a deploy.
      const body = (await response.json()) as { status: string; version: string; commit: string | null };
      expect(Object.keys(body).sort()).toEqual(['commit', 'status', 'version']);
      expect(body.status).toBe('ok');
      expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
      // The commit the bundle was built from; null when no build recorded one.
      expect(body.commit === null || /^[0-9a-f]{7,40}$/.test(body.commit)).toBe(true);
    }
  });

  it('answers /readyz 200 when the upstream answers with its envelope, 503 otherwise', async () => {
    const ready = await fetch(`${origin(stack.gateway)}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });

    const down = await fetch(`${origin(orphan)}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'unavailable', reason: 'the upstream does not answer' });

    faulty.upstream.setBehaviour(notJson);
    const notV1 = await fetch(`${origin(faulty.gateway)}/readyz`);
    expect(notV1.status).toBe(503);
    // A page of one device is small: an answer past the probe's cap is cut, not read whole (this
    // one is a valid envelope of 1 MB, within the cap of GraphQL's calls).
    faulty.upstream.setBehaviour(huge(1024 * 1024));
    const overCap = await fetch(`${origin(faulty.gateway)}/readyz`);
    expect(overCap.status).toBe(503);
    faulty.upstream.setBehaviour(json(200, { error: 0, messages: [], total: 0, data: [] }));
    const v1Again = await fetch(`${origin(faulty.gateway)}/readyz`);
    expect(v1Again.status).toBe(200);
  });

  it('answers /readyz 503 within its deadline when the upstream does not answer in time', async () => {
    faulty.upstream.setBehaviour(slow(10_000, json(200, { error: 0, messages: [], total: 0, data: [] })));
    const started = performance.now();
    const response = await fetch(`${origin(faulty.gateway)}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: 'unavailable', reason: 'the upstream does not answer' });
    // The probe's 2 s, not the gateway's 60 s upstream deadline nor the upstream's 10 s.
    expect(performance.now() - started).toBeLessThan(8_000);
  });

  it('asks the upstream for /readyz on a connection of its own, without a key: ready while every GraphQL connection is busy', async () => {
    const held: (() => void)[] = [];
    const list = json(200, { error: 0, messages: [], total: 0, data: [] });
    faulty.upstream.setBehaviour(byPath({ '/api/v1/atb': list }, (req, res, body) => void held.push(() => list(req, res, body))));
    faulty.upstream.calls.length = 0;
    // 64 GraphQL calls held by the upstream: every connection of the gateway's pool is taken.
    const answers = Array.from({ length: 64 }, (_, i) =>
      postGraphQL(faulty.gateway.url, { query: `{ securityFrameworks(organizationId: "${i + 1}") { totalCount } }` }, { 'x-service-token': 'some-key' }),
    );
    await vi.waitUntil(() => held.length === 64, { timeout: 5_000 });
    const ready = await fetch(`${origin(faulty.gateway)}/readyz`);
    expect(ready.status).toBe(200);
    const probe = faulty.upstream.callsTo('/api/v1/atb');
    expect(probe).toHaveLength(1);
    expect(probe[0]!.headers['x-service-token']).toBeUndefined();
    held.splice(0).forEach((release) => release());
    expect((await Promise.all(answers)).map((answer) => answer.status)).toEqual(Array.from({ length: 64 }, () => 200));
  });

  it('leads GET / to the explorer on /graphql (the landing page is on)', async () => {
    const response = await fetch(`${origin(stack.gateway)}/`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/graphql');
  });

  it('answers an unknown path 404 in JSON', async () => {
    for (const path of ['/graphq', '/graphql/extra', '/api/v1/atb']) {
      const response = await fetch(`${origin(stack.gateway)}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await response.json()).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'NOT_FOUND' } }] });
    }
  });

  it('marks every GraphQL answer Cache-Control: no-store (answers depend on the key)', async () => {
    const response = await fetch(stack.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': TEST_KEYS.admin },
      body: JSON.stringify({ query: FRAMEWORK_COUNT }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('gives every response an X-Request-Id, keeping a sane one the client sent', async () => {
    const given = await fetch(`${origin(stack.gateway)}/healthz`, { headers: { 'x-request-id': 'trace-123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-123');
    const made = await fetch(`${origin(stack.gateway)}/healthz`);
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

/** POSTs a JSON body with node's own client, which shows the response head as it came. */
function rawPost(url: string, body: unknown): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-token': TEST_KEYS.admin } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('GraphQL answers on the wire', () => {
  it('carry a Content-Length equal to the body in bytes (non-ASCII text included), never chunked', async () => {
    // Organization 3: the other tests count organization 1's frameworks.
    const title = 'Sécurité des systèmes — contrôle d’accès ✓ 日本';
    const input = { title, controls: [{ controlId: 'É-1', type: 'contrôle', title: 'Accès revu', weight: 1, frequency: '0 9 * * 1', evidenceType: 'document' }] };
    const created = await rawPost(stack.gateway.url, { query: print(CreateFrameworkDocument), variables: { organizationId: '3', input } });
    const id = (JSON.parse(created.body.toString('utf8')) as { data: { createSecurityFramework: { id: string } } }).data.createSecurityFramework.id;
    const read = await rawPost(stack.gateway.url, { query: print(FrameworkDocument), variables: { organizationId: '3', id } });
    const refused = await rawPost(stack.gateway.url, { query: print(FrameworkDocument), variables: { organizationId: '3', id: ['not', 'an', 'id'] } });

    expect(JSON.parse(read.body.toString('utf8')).data.securityFramework).toMatchObject({ id, title, controls: [{ controlId: 'É-1', type: 'contrôle' }] });
    // The answer holds characters of two to four bytes: its length in characters is not its length on the wire.
    expect(read.body.length).toBeGreaterThan(read.body.toString('utf8').length);
    expect(refused.status).toBe(400);
    for (const [label, answer] of [
      ['the mutation', created],
      ['the query', read],
      ['the refused query', refused],
    ] as const) {
      expect(answer.headers['content-length'], label).toBe(String(answer.body.length));
      expect(answer.headers['transfer-encoding'], label).toBeUndefined();
      expect(answer.headers['content-type'], label).toBe('application/json; charset=utf-8');
    }
  });
});

describe('GET and CSRF prevention', () => {
  const url = () => `${stack.gateway.url}?query=${encodeURIComponent(FRAMEWORK_COUNT)}`;

  it('refuses a GET without a preflight header, before any upstream call', async () => {
    stack.proxy.reset();
    const response = await fetch(url(), { headers: { 'x-service-token': TEST_KEYS.admin } });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Cross-Site Request Forgery');
    expect(stack.proxy.calls).toEqual([]);
  });

  it('refuses a text/plain POST (a form a page could submit cross-site)', async () => {
    stack.proxy.reset();
    const response = await fetch(stack.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-service-token': TEST_KEYS.admin },
      body: JSON.stringify({ query: FRAMEWORK_COUNT }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Cross-Site Request Forgery');
    expect(stack.proxy.calls).toEqual([]);
  });

  it('runs a GET query that carries a preflight header', async () => {
    stack.proxy.reset();
    for (const header of ['apollo-require-preflight', 'x-apollo-operation-name']) {
      const response = await fetch(url(), { headers: { 'x-service-token': TEST_KEYS.admin, [header]: 'FrameworkCount' } });
      expect(response.status, header).toBe(200);
      expect(await response.json()).toEqual({
        data: { securityFrameworks: { totalCount: 0 } },
        extensions: { cost: { estimated: expect.any(Number), upstreamCalls: 1 } },
      });
    }
    expect(stack.proxy.calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      'GET /api/v1/organizations/1/security-frameworks',
      'GET /api/v1/organizations/1/security-frameworks',
    ]);
  });

  it('refuses a mutation over GET with 405, before any upstream call', async () => {
    stack.proxy.reset();
    const mutation = 'mutation { deleteSecurityFramework(organizationId: "1", id: "1") { securityFramework { id } } }';
    const response = await fetch(`${stack.gateway.url}?query=${encodeURIComponent(mutation)}`, {
      headers: { 'x-service-token': TEST_KEYS.admin, 'apollo-require-preflight': 'true' },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(stack.proxy.calls).toEqual([]);
  });
});

async function preflight(from: string) {
  return fetch(stack.gateway.url, {
    method: 'OPTIONS',
    headers: {
      origin: from,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-service-token',
    },
  });
}

describe('CORS', () => {
  it.each([SANDBOX_ORIGIN, 'https://studio.apollographql.com', APP_ORIGIN])('allows %s on preflight and on the request', async (from) => {
    const answer = await preflight(from);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(from);
    expect(answer.headers.get('access-control-allow-methods')).toBe('GET,HEAD,POST,OPTIONS');
    expect(answer.headers.get('access-control-allow-headers')?.split(',')).toEqual(
      expect.arrayContaining(['content-type', 'x-service-token', 'authorization', 'apollo-require-preflight']),
    );
    expect(answer.headers.get('vary')).toContain('Origin');

    const actual = await postGraphQL(stack.gateway.url, { query: FRAMEWORK_COUNT }, { origin: from, 'x-service-token': TEST_KEYS.admin });
    expect(actual.status).toBe(200);
    expect(actual.headers.get('access-control-allow-origin')).toBe(from);
    expect(actual.data).toEqual({ securityFrameworks: { totalCount: 0 } });
  });

  it.each(['https://evil.example.com', 'http://app.example.com', 'https://app.example.com.evil.net', 'null'])(
    'gives %s no CORS headers',
    async (from) => {
      const answer = await preflight(from);
      expect(answer.status).toBe(204);
      expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
      expect(answer.headers.get('vary')).toBe('Origin');

      // The request itself still runs (CORS is the browser's guard), without CORS headers.
      const actual = await postGraphQL(stack.gateway.url, { query: '{ __typename }' }, { origin: from, 'x-service-token': TEST_KEYS.admin });
      expect(actual.status).toBe(200);
      expect([...actual.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    },
  );
});

describe('CORS for front-end dev servers', () => {
  const preflightTo = (url: string, from: string) =>
    fetch(url, { method: 'OPTIONS', headers: { origin: from, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-service-token' } });

  it('allows http://localhost and http://127.0.0.1 on any port in the embedded demo, without a setting', async () => {
    const demo = await startStack({ gateway: { embeddedDemo: true } });
    try {
      for (const from of ['http://localhost:5173', 'http://127.0.0.1:3000', 'http://[::1]:8080', 'http://localhost']) {
        const answer = await preflightTo(demo.gateway.url, from);
        expect(answer.headers.get('access-control-allow-origin'), from).toBe(from);
        const actual = await postGraphQL(demo.gateway.url, { query: '{ __typename }' }, { origin: from, 'x-service-token': TEST_KEYS.admin });
        expect(actual.headers.get('access-control-allow-origin'), from).toBe(from);
      }
      for (const from of ['https://localhost:5173', 'http://localhost.evil.net', 'http://192.168.1.2:5173']) {
        expect((await preflightTo(demo.gateway.url, from)).headers.get('access-control-allow-origin'), from).toBeNull();
      }
    } finally {
      await demo.close();
    }
  });

  it('keeps to CORS_ORIGINS in front of a configured upstream, and in production', async () => {
    // The suite's stack is a configured upstream (no embedded demo).
    expect((await preflight('http://localhost:5173')).headers.get('access-control-allow-origin')).toBeNull();
    const production = await startStack({ gateway: { embeddedDemo: true, production: true } });
    try {
      expect((await preflightTo(production.gateway.url, 'http://localhost:5173')).headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await production.close();
    }
  });
});

describe('body-size limit', () => {
  const padded = (bytes: number) => JSON.stringify({ query: FRAMEWORK_COUNT, variables: { pad: 'x'.repeat(bytes) } });

  it('answers 413 with a JSON error to a body over the limit (declared length), before any upstream call', async () => {
    stack.proxy.reset();
    const response = await postGraphQL(stack.gateway.url, padded(BODY_LIMIT), { 'x-service-token': TEST_KEYS.admin });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.errors).toEqual([{ message: 'Request body is too large: the limit is 65536 bytes (BODY_LIMIT_BYTES).', extensions: { code: 'PAYLOAD_TOO_LARGE' } }]);
    expect(response.headers.get('connection')).toBe('close');
    expect(stack.proxy.calls).toEqual([]);
  });

  it('answers 413 to a streamed body with no length once it passes the limit', async () => {
    const bytes = Buffer.from(padded(4 * BODY_LIMIT));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 16 * 1024) controller.enqueue(bytes.subarray(at, at + 16 * 1024));
        controller.close();
      },
    });
    const response = await fetch(stack.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': TEST_KEYS.admin },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.headers.get('content-length')).not.toBeNull();
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ errors: [{ message: 'Request body is too large: the limit is 65536 bytes (BODY_LIMIT_BYTES).', extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });
  });

  it('runs an operation whose body is just under the limit', async () => {
    const body = padded(BODY_LIMIT - 200);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BODY_LIMIT);
    const response = await postGraphQL(stack.gateway.url, body, { 'x-service-token': TEST_KEYS.admin });
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ securityFrameworks: { totalCount: 0 } });
  });
});

describe('slow clients', () => {
  it('closes a client that sends its headers byte by byte (slowloris) after the headers timeout', async () => {
    const head = 'GET /healthz HTTP/1.1\r\nHost: gateway\r\n';
    const drip = `X-Slow: ${'a'.repeat(400)}\r\n\r\n`; // 400 bytes at 25 per second: 16 s if let through
    const result = await slowClient(stack.gateway.port, head, drip);
    expect(result.closedByServer).toBe(true);
    expect(result.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.dripped).toBeLessThan(drip.length);
  });

  it('closes a client that sends its body byte by byte after the request timeout', async () => {
    const body = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(300) } });
    // With a key: without one the gateway answers 401 before reading the body at all.
    const head = `POST /graphql HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nX-Service-Token: ${TEST_KEYS.admin}\r\nContent-Length: ${body.length}\r\n\r\n`;
    const result = await slowClient(stack.gateway.port, head, body);
    expect(result.closedByServer).toBe(true);
    expect(result.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.dripped).toBeLessThan(body.length);
  });

  it('still serves a client that sends its headers in time', async () => {
    const response = await fetch(`${origin(stack.gateway)}/healthz`);
    expect(response.status).toBe(200);
  });

  it('does not cut a response that takes longer than the request timeout (it bounds receiving only)', async () => {
    faulty.upstream.setBehaviour(slow(1_000, json(200, { error: 0, messages: [], total: 0, data: [] })));
    const response = await postGraphQL(faulty.gateway.url, { query: FRAMEWORK_COUNT }, { 'x-service-token': TEST_KEYS.admin });
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ securityFrameworks: { totalCount: 0 } });
  });
});

describe('a client that goes away', () => {
  it('cancels the upstream calls made on its behalf: the upstream sees the connection closed', async () => {
    let upstreamClosed = 0;
    faulty.upstream.calls.length = 0;
    // The upstream never answers; it only notes when the gateway hangs up on it.
    faulty.upstream.setBehaviour((_req, res) => {
      res.on('close', () => (upstreamClosed += 1));
    });
    const client = new AbortController();
    const pending = fetch(faulty.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': TEST_KEYS.admin },
      body: JSON.stringify({
        query: '{ a: securityFrameworks(organizationId: "1") { totalCount } b: securityFrameworks(organizationId: "2") { totalCount } }',
      }),
      signal: client.signal,
    });
    // Both upstream calls arrive.
    await vi.waitUntil(() => faulty.upstream.calls.length === 2, { timeout: 5_000, interval: 20 });
    expect(upstreamClosed).toBe(0);

    client.abort();
    await expect(pending).rejects.toThrow();
    // The upstream deadline is 60 s: only the cancel can close these calls now; wait for the
    // upstream to see both closed.
    await vi.waitUntil(() => upstreamClosed === 2, { timeout: 5_000, interval: 20 });
    expect(faulty.upstream.calls.map((call) => call.path)).toEqual([
      '/api/v1/organizations/1/security-frameworks',
      '/api/v1/organizations/2/security-frameworks',
    ]);
    // A cancel is not a fault of the gateway: nothing logged as an internal error.
    expect(faulty.logs.filter((line) => /internal error|request failed/.test(line))).toEqual([]);

    // The gateway goes on serving.
    faulty.upstream.setBehaviour(json(200, { error: 0, messages: [], total: 0, data: [] }));
    const next = await postGraphQL(faulty.gateway.url, { query: FRAMEWORK_COUNT }, { 'x-service-token': TEST_KEYS.admin });
    expect(next.status).toBe(200);
    expect(next.data).toEqual({ securityFrameworks: { totalCount: 0 } });
  });

  it('leaves nothing behind when the client goes away in the middle of its body', async () => {
    const result = await new Promise<string>((resolve) => {
      const socket = connect(faulty.gateway.port, '127.0.0.1', () => {
        // With a key: without one the gateway answers 401 before reading the body at all.
        const partial = `POST /graphql HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nX-Service-Token: ${TEST_KEYS.admin}\r\nContent-Length: 1000\r\n\r\n{"query":`;
        socket.write(partial, () => setTimeout(() => socket.destroy(), 100));
      });
      let answer = '';
      socket.on('data', (chunk) => (answer += String(chunk)));
      socket.on('error', () => {});
      socket.on('close', () => resolve(answer));
    });
    expect(result).toBe('');
    const health = await fetch(`${origin(faulty.gateway)}/healthz`);
    expect(health.status).toBe(200);
    expect(faulty.logs.filter((line) => /internal error|request failed/.test(line))).toEqual([]);
  });
});
