// The upstream client and its operations against a real (misbehaving) HTTP upstream: every fault becomes the contract's error
// code, and no error says anything of the upstream's address or the key.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GraphQLError } from 'graphql';
import type { ServerResponse } from 'node:http';
import type { CallRecord, CallerOptions, UpstreamClient } from '../../../src/gateway/upstream/client.ts';
import type { CircuitBreakerOptions } from '../../../src/gateway/upstream/circuit-breaker.ts';
import { parseRetryAfter, retryAfterMs } from '../../../src/gateway/upstream/outcome.ts';
import { RetryBudget, backoffMs } from '../../../src/gateway/upstream/retry.ts';
import { Transport } from '../../../src/gateway/upstream/transport.ts';
import { GatewayError, RequestCancelledError, isNotFound } from '../../../src/gateway/errors.ts';
import { createFormatError } from '../../../src/gateway/format-error.ts';
import * as frameworks from '../../../src/gateway/domains/security-frameworks/operations.ts';
import * as webProtection from '../../../src/gateway/domains/web-protection/operations.ts';
import * as devices from '../../../src/gateway/domains/protection-devices/operations.ts';
import {
  contractBreaking,
  envelopeError,
  huge,
  json,
  notJson,
  rateLimited,
  refusedUrl,
  sequence,
  resetBeforeHeaders,
  resetMidBody,
  slow,
  startFaultUpstream,
  status5xx,
  truncated,
  type Behaviour,
  type FaultUpstream,
} from '../../helpers/fault-upstream.ts';

const KEY = 'k3y-Secret-7f41c2d9e8';

const org = { id: 2, name: 'Acme', logo: 'https://example.com/acme.png' };
const device = {
  id: 7,
  organization: org,
  atb_key: '0b5b2f3e-8a51-4c39-9d1e-2f4a6b8c9d0e',
  type: 'firewall',
  email: 'ops@acme.example',
  check: {
    stat: { vpn: 1, dnsbl: 0, iplist: 3, datetime: '2026-11-21T08:15:30Z' },
    status: 1,
    web_stat: [{ datetime: '2026-11-21T08:00:00Z', waf_protection: 0.5, total_managed_requests: 120 }],
    chart_stat: [{ bucket_start: 0, bucket_end: 60, total_requests: 10, malicious_requests: 1 }],
  },
  plugin: { name: 'waf', config: {} },
  endpoint: '203.0.113.7',
  privateIP: '10.0.0.7',
  services: ['waf'],
  device_id: 'dev-7',
};
const entry = {
  id: 11,
  date_time: '2026-11-21T08:15:30Z',
  type: 'waf',
  src_ip: '198.51.100.1',
  dest_ip: '10.0.0.7',
  dest_port: '443',
  log_message: 'GET / 403',
  extra: { action: 'block' },
};
const framework = {
  id: 5,
  title: 'ISO 27001',
  security_frameworks: [
    {
      id: 'A.5.1',
      type: 'control',
      title: 'Policies',
      weight: 1.5,
      details: {},
      evidences: [
        {
          files: ['/api/v1/documents/organizations/2/security-frameworks/5/documents/A.5.1/policy.pdf'],
          details: 'signed',
          datetime: '2026-11-21T08:15:30Z',
          completed: 1,
          residual_risk: 0.2,
          submitted_by: { user_id: '6f1c2b3a-1d2e-4f5a-8b9c-0d1e2f3a4b5c', user_email: 'ciso@acme.example' },
        },
      ],
      frequency: '0 9 * * 1',
      description: '',
      evidence_type: 'document',
    },
  ],
};
const record = {
  id: 3,
  organization: org,
  email: 'web@acme.example',
  fqdn: 'shop.acme.example',
  check: { stat: { fqdn: 1, proxy: 1, endpoint: 1, datetime: '2026-11-21T08:15:30Z' }, status: 1, web_stat: [] },
  endpoint: '203.0.113.9',
  services: ['waf', 'cdn'],
};
const ok = (fields: object) => ({ error: 0, messages: [], ...fields });

let up: FaultUpstream;
let calls: CallRecord[];

beforeAll(async () => {
  up = await startFaultUpstream();
});
afterAll(async () => {
  await up.close();
});
/** The transports of one case, as gateways would own them: one per base URL and breaker settings. */
let transports: Map<string, Transport>;
/** Every move of any circuit in the case. */
let circuitChanges: string[];
beforeEach(() => {
  // The breaker and the retry budget belong to a transport: each case makes its own.
  transports = new Map();
  circuitChanges = [];
  up.calls.length = 0;
  calls = [];
});
afterEach(async () => {
  await Promise.all([...transports.values()].map((transport) => transport.close()));
});

function transportFor(baseUrl: string, circuitBreaker?: Partial<CircuitBreakerOptions>): Transport {
  const key = JSON.stringify([baseUrl, circuitBreaker ?? null]);
  let transport = transports.get(key);
  if (transport === undefined) {
    transport = new Transport({ baseUrl, circuitBreaker, onCircuitStateChange: (state) => circuitChanges.push(state) });
    transports.set(key, transport);
  }
  return transport;
}

/** The circuit of the transport these settings name. */
function circuit(circuitBreaker?: Partial<CircuitBreakerOptions>) {
  return transportFor(up.url, circuitBreaker).breaker.state;
}

/** The eight v1 operations over one caller's client. */
function v1(c: UpstreamClient) {
  return {
    listSecurityFrameworks: (organizationId: string | number) => frameworks.listSecurityFrameworks(c, organizationId),
    createSecurityFramework: (body: frameworks.SecurityFrameworkBody, organizationId?: string | number) =>
      frameworks.createSecurityFramework(c, body, organizationId),
    updateSecurityFramework: (organizationId: string | number, id: string | number, body: frameworks.SecurityFrameworkBody) =>
      frameworks.updateSecurityFramework(c, organizationId, id, body),
    deleteSecurityFramework: (organizationId: string | number, id: string | number) => frameworks.deleteSecurityFramework(c, organizationId, id),
    updateWebProtectionRecord: (id: string | number, body: webProtection.WebProtectionRecordPatch) => webProtection.updateWebProtectionRecord(c, id, body),
    deleteWebProtectionRecord: (id: string | number) => webProtection.deleteWebProtectionRecord(c, id),
    listProtectionDevices: (q?: devices.ProtectionDeviceQuery) => devices.listProtectionDevices(c, q),
    listTraffic: (deviceId: string | number, q?: devices.TrafficQuery) => devices.listTraffic(c, deviceId, q),
  };
}
type V1 = ReturnType<typeof v1>;

type ClientOptions = Partial<CallerOptions> & { baseUrl?: string; circuitBreaker?: Partial<CircuitBreakerOptions> };

function client({ baseUrl = up.url, circuitBreaker, ...caller }: ClientOptions = {}): V1 {
  return v1(transportFor(baseUrl, circuitBreaker).client({ apiKey: KEY, deadlineMs: 3_000, onCall: (c) => calls.push(c), ...caller }));
}

/** The error a call fails with, checked for what must never be in it. */
async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const err: unknown = await promise.then(
    () => expect.fail('expected the call to fail'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GatewayError);
  const error = err as GatewayError;
  const text = JSON.stringify(error) + error.message;
  for (const secret of [KEY, up.url, '127.0.0.1', String(up.port)]) expect(text).not.toContain(secret);
  expect(error.originalError).toBeUndefined();
  const { upstream } = error.extensions;
  if (upstream !== undefined) {
    expect(Object.keys(upstream).sort()).toEqual(['error', 'messages', 'status']);
    for (const m of upstream.messages) {
      expect(['code', 'field', 'message']).toEqual(expect.arrayContaining(Object.keys(m)));
    }
  }
  return error;
}

describe('requests', () => {
  it('lists devices with the key, Accept and every query parameter', async () => {
    up.setBehaviour(json(200, ok({ total: 1, data: [device] })));
    const list = await client().listProtectionDevices({
      limit: 20,
      offset: 40,
      order: '-email',
      organization: '2',
      services: ['waf', 'cdn'],
    });
    expect(list).toEqual({ total: 1, data: [device] });
    const [call] = up.calls;
    expect(call?.method).toBe('GET');
    expect(call?.path).toBe('/api/v1/atb');
    expect(call?.headers['x-service-token']).toBe(KEY);
    expect(call?.headers.accept).toBe('application/json');
    expect(call?.query.get('limit')).toBe('20');
    expect(call?.query.get('offset')).toBe('40');
    expect(call?.query.get('order')).toBe('-email');
    expect(call?.query.get('organization')).toBe('2');
    expect(call?.query.getAll('services')).toEqual(['waf', 'cdn']);
    expect(calls).toEqual([
      { route: 'GET /api/v1/atb', method: 'GET', status: 200, durationMs: expect.any(Number), outcome: 'ok', attempt: 1 },
    ]);
  });

  it('lists traffic with repeated actions[], search, and the device id URL-encoded', async () => {
    up.setBehaviour(json(200, ok({ total: 1, data: [entry] })));
    const list = await client().listTraffic('7/../x', { actions: ['block', 'allow'], search: 'GET 403', limit: 10 });
    expect(list.data[0]?.id).toBe(11);
    const [call] = up.calls;
    expect(call?.path).toBe('/api/v1/atb/7%2F..%2Fx/traffic');
    expect(call?.query.getAll('actions[]')).toEqual(['block', 'allow']);
    expect(call?.query.get('search')).toBe('GET 403');
    expect(calls[0]?.route).toBe('GET /api/v1/atb/{id}/traffic');
  });

  it('keeps a dot-segment id inside its segment', async () => {
    up.setBehaviour(json(200, ok({ total: 0, data: [] })));
    await client().listTraffic('..');
    expect(up.calls[0]?.path).toBe('/api/v1/atb/%2E%2E/traffic');
  });

  it('creates a framework with a JSON body and the organization query', async () => {
    up.setBehaviour(json(201, ok({ security_framework: 42 })));
    const body = { title: 'NIST', security_frameworks: [] };
    expect(await client().createSecurityFramework(body, '2')).toBe(42);
    const [call] = up.calls;
    expect(call?.method).toBe('POST');
    expect(call?.path).toBe('/api/v1/V-Ciso/security-frameworks');
    expect(call?.query.get('organization')).toBe('2');
    expect(call?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(call?.body ?? '')).toEqual(body);
  });

  it('sends no organization query when none is given', async () => {
    up.setBehaviour(json(201, ok({ security_framework: 43 })));
    await client().createSecurityFramework({ title: 'CIS', security_frameworks: [] });
    expect(up.calls[0]?.query.has('organization')).toBe(false);
  });

  it('lists, edits and deletes frameworks', async () => {
    up.setBehaviour(json(200, ok({ total: 1, data: [framework] })));
    expect(await client().listSecurityFrameworks('2')).toEqual({ total: 1, data: [framework] });
    up.setBehaviour(json(200, ok({ security_framework: framework })));
    const edited = await client().updateSecurityFramework('2', '5', { title: 'ISO 27001', security_frameworks: [] });
    expect(edited.id).toBe(5);
    expect(await client().deleteSecurityFramework(2, 5)).toEqual(framework);
    expect(up.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /api/v1/organizations/2/security-frameworks',
      'PUT /api/v1/organizations/2/security-frameworks/5',
      'DELETE /api/v1/organizations/2/security-frameworks/5',
    ]);
    expect(up.calls[2]?.body).toBe('');
    expect(calls.map((c) => c.route)).toEqual([
      'GET /api/v1/organizations/{organizationid}/security-frameworks',
      'PUT /api/v1/organizations/{organizationid}/security-frameworks/{frameworkid}',
      'DELETE /api/v1/organizations/{organizationid}/security-frameworks/{frameworkid}',
    ]);
  });

  it('edits and deletes web protection records', async () => {
    up.setBehaviour(json(200, ok({ data: record })));
    expect(await client().updateWebProtectionRecord('3', { fqdn: 'shop.acme.example' })).toEqual(record);
    expect(await client().deleteWebProtectionRecord('3')).toEqual(record);
    expect(JSON.parse(up.calls[0]?.body ?? '')).toEqual({ fqdn: 'shop.acme.example' });
    expect(up.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'PUT /api/v1/cloud-defender/3',
      'DELETE /api/v1/cloud-defender/3',
    ]);
  });

  it('accepts null in the fields the GraphQL contract makes nullable', async () => {
    const sparse = { ...device, check: null, plugin: null, endpoint: null, privateIP: null, atb_key: null };
    up.setBehaviour(json(200, ok({ total: 1, data: [sparse] })));
    expect((await client().listProtectionDevices()).data).toEqual([sparse]);
  });

  it('keeps a path prefix of the base URL', async () => {
    up.setBehaviour(json(200, ok({ total: 0, data: [] })));
    await client({ baseUrl: `${up.url}/v1-service/` }).listProtectionDevices();
    expect(up.calls[0]?.path).toBe('/v1-service/api/v1/atb');
  });

  it('refuses an empty key before any call', async () => {
    const err = await failure(client({ apiKey: '' }).listProtectionDevices());
    expect(err.extensions.code).toBe('UNAUTHENTICATED');
    expect(up.calls).toHaveLength(0);
  });
});

describe('upstream statuses', () => {
  const messages = [{ code: 'validation_failed', message: 'limit must be 1–500', field: 'limit' }];
  it.each([
    [401, 'UNAUTHENTICATED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [400, 'BAD_USER_INPUT'],
    [422, 'BAD_USER_INPUT'],
    [405, 'UPSTREAM_ERROR'],
    [413, 'UPSTREAM_ERROR'],
    // A URL or headers too long for the upstream: the client's filter made them so.
    [414, 'BAD_USER_INPUT'],
    [431, 'BAD_USER_INPUT'],
    [500, 'UPSTREAM_UNAVAILABLE'],
    [503, 'UPSTREAM_UNAVAILABLE'],
  ])('%i becomes %s with the upstream messages', async (status, code) => {
    up.setBehaviour(envelopeError(status, messages));
    const err = await failure(client().listProtectionDevices());
    // v1's `limit` is the client's `first` argument on this route.
    const field = code === 'BAD_USER_INPUT' ? { field: 'first' } : {};
    expect(err.extensions).toEqual({ code, ...field, upstream: { status, error: 1, messages } });
    expect(isNotFound(err)).toBe(code === 'NOT_FOUND');
    expect(calls[0]).toMatchObject({ status, outcome: code });
  });

  it('puts the upstream message, in GraphQL words, in the error message for input errors, not for 5xx', async () => {
    up.setBehaviour(envelopeError(400, messages));
    expect((await failure(client().listProtectionDevices())).message).toBe('Invalid input: first must be 1–500');
    up.setBehaviour(envelopeError(500, [{ code: 'internal', message: 'db exploded' }]));
    expect((await failure(client().listProtectionDevices())).message).not.toContain('db exploded');
  });

  it('treats a 2xx with error != 0 as UPSTREAM_ERROR, plain-string messages normalized', async () => {
    up.setBehaviour(envelopeError(200, ['quota exceeded', { code: 'x', message: 'y', field: 'z', stack: 'at /srv/app.js', url: 'http://internal' }, 42]));
    const err = await failure(client().listProtectionDevices());
    expect(err.extensions).toEqual({
      code: 'UPSTREAM_ERROR',
      upstream: {
        status: 200,
        error: 1,
        messages: [
          { code: 'unspecified', message: 'quota exceeded' },
          { code: 'x', message: 'y', field: 'z' },
        ],
      },
    });
  });

  it('maps a 5xx that is not JSON (a proxy page) by its status', async () => {
    up.setBehaviour((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<h1>Bad Gateway</h1>');
    });
    const err = await failure(client().listProtectionDevices());
    expect(err.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE', upstream: { status: 502, error: null, messages: [] } });
  });

  it('5xx from the fault helper', async () => {
    up.setBehaviour(status5xx);
    expect((await failure(client().listTraffic('7'))).extensions.code).toBe('UPSTREAM_UNAVAILABLE');
  });

  it('RATE_LIMITED carries retryAfter from seconds or an HTTP date', async () => {
    up.setBehaviour(rateLimited(7));
    const err = await failure(client().listProtectionDevices());
    expect(err.extensions.code).toBe('RATE_LIMITED');
    expect(err.extensions.retryAfter).toBe(7);
    expect(err.extensions.upstream?.status).toBe(429);
    // 7 s is past the 3 s deadline: no wait, no retry.
    expect(up.calls).toHaveLength(1);

    up.setBehaviour(rateLimited(new Date(Date.now() + 30_000).toUTCString()));
    const byDate = await failure(client().listProtectionDevices());
    expect(byDate.extensions.retryAfter).toBeGreaterThanOrEqual(28);
    expect(byDate.extensions.retryAfter).toBeLessThanOrEqual(31);

    up.setBehaviour(json(429, { error: 1, messages: [] }));
    expect((await failure(client().listProtectionDevices())).extensions).not.toHaveProperty('retryAfter');
  });

  it('never passes the key on, even when the upstream echoes it', async () => {
    up.setBehaviour(envelopeError(401, [{ code: 'unauthenticated', message: `unknown key ${KEY}` }]));
    const err = await failure(client().listProtectionDevices());
    expect(err.extensions.upstream?.messages[0]?.message).toBe('unknown key [redacted]');
    expect(JSON.stringify(calls)).not.toContain(KEY);
  });
});

describe('bad responses', () => {
  it('not JSON', async () => {
    up.setBehaviour(notJson);
    const err = await failure(client().listProtectionDevices());
    expect(err.extensions).toEqual({ code: 'UPSTREAM_BAD_RESPONSE', upstream: { status: 200, error: null, messages: [] } });
  });

  it('a reply that is not HTTP at all', async () => {
    up.setBehaviour((req) => {
      req.socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n');
    });
    const err = await failure(client().listProtectionDevices());
    expect(err.extensions).toEqual({ code: 'UPSTREAM_BAD_RESPONSE' });
  });

  it('JSON that is not an object, or has no integer error', async () => {
    up.setBehaviour(json(200, [1, 2]));
    expect((await failure(client().listProtectionDevices())).extensions.code).toBe('UPSTREAM_BAD_RESPONSE');
    up.setBehaviour(json(200, { messages: [], total: 0, data: [] }));
    expect((await failure(client().listProtectionDevices())).message).toContain('error: expected an integer');
  });

  it('data that is not an array', async () => {
    up.setBehaviour(contractBreaking);
    const err = await failure(client().listTraffic('7'));
    expect(err.extensions.code).toBe('UPSTREAM_BAD_RESPONSE');
    expect(err.message).toContain('data: expected an array');
  });

  it.each<[string, object, string]>([
    ['a string id', { total: 1, data: [{ ...entry, id: '11' }] }, 'data[0].id: expected an integer'],
    ['a missing field', { total: 1, data: [{ ...entry, log_message: undefined }] }, 'data[0].log_message: expected a string'],
    ['a negative total', { total: -1, data: [] }, 'total: expected a non-negative integer'],
    ['no total', { data: [] }, 'total: expected a non-negative integer'],
    ['an extra that is not an object', { total: 1, data: [{ ...entry, extra: 'a=b' }] }, 'data[0].extra: expected an object'],
  ])('a traffic list with %s', async (_name, fields, where) => {
    up.setBehaviour(json(200, ok(fields)));
    const err = await failure(client().listTraffic('7'));
    expect(err.extensions.code).toBe('UPSTREAM_BAD_RESPONSE');
    expect(err.message).toContain(where);
  });

  it('checks nested items: a control weight that is a string', async () => {
    const broken = { ...framework, security_frameworks: [{ ...framework.security_frameworks[0], weight: '1.5' }] };
    up.setBehaviour(json(200, ok({ total: 1, data: [broken] })));
    const err = await failure(client().listSecurityFrameworks('2'));
    expect(err.message).toContain('data[0].security_frameworks[0].weight: expected a number');
  });

  it('a create that does not return a numeric id', async () => {
    up.setBehaviour(json(201, ok({ security_framework: '42' })));
    const err = await failure(client().createSecurityFramework({ title: 't', security_frameworks: [] }, '2'));
    expect(err.extensions.code).toBe('UPSTREAM_BAD_RESPONSE');
    expect(err.extensions).not.toHaveProperty('outcome');
  });

  it('an edit whose result lacks the expected key', async () => {
    up.setBehaviour(json(200, ok({ data: record })));
    const err = await failure(client().updateSecurityFramework('2', '5', { title: 't', security_frameworks: [] }));
    expect(err.message).toContain('security_framework: expected an object');
  });

  it('a body over the size cap, declared by Content-Length', async () => {
    up.setBehaviour(json(200, ok({ total: 1, data: [entry] })));
    const err = await failure(client({ maxBodyBytes: 100 }).listTraffic('7'));
    expect(err.extensions.code).toBe('UPSTREAM_BAD_RESPONSE');
    expect(err.message).toContain('over the 100-byte limit');
  });

  it('a streamed body over the size cap: reading stops', async () => {
    let sawClose!: Promise<boolean>;
    const streamed = huge(64 * 1024 * 1024);
    up.setBehaviour(async (req, res: ServerResponse, body) => {
      sawClose = new Promise((resolve) => res.on('close', () => resolve(res.writableFinished)));
      await streamed(req, res, body);
    });
    const err = await failure(client({ maxBodyBytes: 256 * 1024 }).listTraffic('7'));
    expect(err.extensions.code).toBe('UPSTREAM_BAD_RESPONSE');
    expect(await sawClose).toBe(false); // the client hung up long before the 64 MiB were sent
  });
});

describe('connection faults', () => {
  it('connection refused: UPSTREAM_UNAVAILABLE, and a mutation is known not to have happened', async () => {
    const url = await refusedUrl();
    const port = new URL(url).port;
    for (const call of [
      (c: V1) => c.listProtectionDevices(),
      (c: V1) => c.deleteWebProtectionRecord('3'),
    ]) {
      const err = await failure(call(client({ baseUrl: url })));
      expect(err.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE' });
      expect(JSON.stringify(err) + err.message).not.toContain(port);
    }
    // The GET is tried three times; the mutation once.
    expect(calls.map((c) => [c.method, c.attempt, c.status, c.outcome])).toEqual([
      ['GET', 1, null, 'UPSTREAM_UNAVAILABLE'],
      ['GET', 2, null, 'UPSTREAM_UNAVAILABLE'],
      ['GET', 3, null, 'UPSTREAM_UNAVAILABLE'],
      ['DELETE', 1, null, 'UPSTREAM_UNAVAILABLE'],
    ]);
  });

  it('reset before headers: UNAVAILABLE; a mutation outcome is UNKNOWN', async () => {
    up.setBehaviour(resetBeforeHeaders);
    expect((await failure(client().listProtectionDevices())).extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE' });
    const err = await failure(client().updateWebProtectionRecord('3', { email: 'a@b.example' }));
    expect(err.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE', outcome: 'UNKNOWN' });
  });

  it.each<[string, Behaviour]>([
    ['reset mid-body', resetMidBody],
    ['truncated body', truncated],
  ])('%s: UNAVAILABLE; UNKNOWN outcome for a mutation', async (_name, behaviour) => {
    up.setBehaviour(behaviour);
    expect((await failure(client().listTraffic('7'))).extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE' });
    const err = await failure(client().deleteSecurityFramework('2', '5'));
    expect(err.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE', outcome: 'UNKNOWN' });
    expect(calls[0]?.status).toBe(200);
  });

  it('the deadline: UPSTREAM_TIMEOUT; a mutation outcome is UNKNOWN', async () => {
    up.setBehaviour(slow(5_000, json(200, ok({ total: 0, data: [] }))));
    const fast = client({ deadlineMs: 150 });
    expect((await failure(fast.listProtectionDevices())).extensions).toEqual({ code: 'UPSTREAM_TIMEOUT' });
    const err = await failure(fast.createSecurityFramework({ title: 't', security_frameworks: [] }, '2'));
    expect(err.extensions).toEqual({ code: 'UPSTREAM_TIMEOUT', outcome: 'UNKNOWN' });
    expect(calls.map((c) => c.outcome)).toEqual(['UPSTREAM_TIMEOUT', 'UPSTREAM_TIMEOUT']);
  });

  it('a slow answer within the deadline is fine', async () => {
    up.setBehaviour(slow(50, json(200, ok({ total: 0, data: [] }))));
    expect(await client({ deadlineMs: 2_000 }).listProtectionDevices()).toEqual({ total: 0, data: [] });
  });

  it('the deadline also covers a body that stalls', async () => {
    up.setBehaviour((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"error":0,');
    });
    expect((await failure(client({ deadlineMs: 150 }).listTraffic('7'))).extensions.code).toBe('UPSTREAM_TIMEOUT');
  });

  /**
   * A pool of one socket, held 1.5 s by a first call, so that the calls `queue` makes wait for it.
   * `queue` is given the transport and whether the socket is free again; afterwards the first call
   * has its answer and the queued calls were never sent.
   */
  async function withTheOnlySocketHeld(queue: (transport: Transport, socketFree: () => boolean) => Promise<void>): Promise<void> {
    const transport = new Transport({ baseUrl: up.url, pool: { connections: 1 } });
    try {
      up.setBehaviour(slow(1_500, json(200, ok({ total: 0, data: [] }))));
      let free = false;
      const holding = devices.listProtectionDevices(transport.client({ apiKey: KEY, deadlineMs: 5_000 })).finally(() => (free = true));
      await queue(transport, () => free);
      expect(await holding).toEqual({ total: 0, data: [] });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(up.calls.map((call) => call.path)).toEqual(['/api/v1/atb']);
    } finally {
      await transport.close();
    }
  }

  it('a call still waiting for a socket ends at its own deadline, not when the socket comes free', async () => {
    await withTheOnlySocketHeld(async (transport, socketFree) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const queued = await failure(devices.listTraffic(transport.client({ apiKey: KEY, deadlineMs: 200, retries: 0 }), '7'));
      expect(queued.extensions.code).toBe('UPSTREAM_TIMEOUT');
      // It ended while the socket it waited for was still taken.
      expect(socketFree()).toBe(false);
    });
  });

  it('a call still waiting for a socket is cancelled by its request at once', async () => {
    await withTheOnlySocketHeld(async (transport, socketFree) => {
      const controller = new AbortController();
      const queued = devices.listTraffic(transport.client({ apiKey: KEY, signal: controller.signal }), '7').catch((e: unknown) => e);
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort();
      expect(await queued).toBeInstanceOf(RequestCancelledError);
      expect(socketFree()).toBe(false);
    });
  });

  it('an informational 1xx before the answer is passed over', async () => {
    up.setBehaviour((req, res, body) => {
      res.writeEarlyHints({ link: '</api/v1/atb>; rel=preload' });
      return json(200, ok({ total: 1, data: [entry] }))(req, res, body);
    });
    expect(await client().listTraffic('7')).toEqual({ total: 1, data: [entry] });
    expect(calls.map((call) => [call.status, call.outcome])).toEqual([[200, 'ok']]);
  });

  it('an informational 1xx is not the status of the answer: a reset after it leaves the call with none', async () => {
    up.setBehaviour((_req, res) => {
      res.writeEarlyHints({ link: '</api/v1/atb>; rel=preload' });
      setTimeout(() => res.socket?.destroy(), 20);
    });
    expect((await failure(client({ retries: 0 }).listTraffic('7'))).extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(calls.map((call) => [call.status, call.outcome])).toEqual([[null, 'UPSTREAM_UNAVAILABLE']]);
  });

  it('the request signal cancels a call in flight: a cancellation, not an upstream error', async () => {
    up.setBehaviour(slow(5_000, json(200, ok({ total: 0, data: [] }))));
    const controller = new AbortController();
    const pending = client({ signal: controller.signal }).listProtectionDevices();
    setTimeout(() => controller.abort(), 50);
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestCancelledError);
    expect(err).not.toBeInstanceOf(GraphQLError);
    expect(calls[0]?.outcome).toBe('CANCELLED');
  });

  it('one request signal serves many concurrent calls, and cancels them all', async () => {
    up.setBehaviour(slow(5_000, json(200, ok({ total: 0, data: [] }))));
    const controller = new AbortController();
    const c = client({ signal: controller.signal });
    const pending = Array.from({ length: 12 }, () => c.listProtectionDevices().catch((e: unknown) => e));
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    for (const err of await Promise.all(pending)) expect(err).toBeInstanceOf(RequestCancelledError);
  });

  it('an aborted signal makes no call at all', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(client({ signal: controller.signal }).listProtectionDevices()).rejects.toBeInstanceOf(RequestCancelledError);
    expect(up.calls).toHaveLength(0);
  });

  it('reuses keep-alive connections across clients', async () => {
    const ports = new Set<number | undefined>();
    up.setBehaviour((req, res, body) => {
      ports.add(req.socket.remotePort);
      return json(200, ok({ total: 0, data: [] }))(req, res, body);
    });
    // Sequential calls may alternate between two sockets (a socket is free again a tick after its
    // body ends), but never open one per call.
    for (let i = 0; i < 6; i++) await client().listProtectionDevices();
    expect(ports.size).toBeLessThan(6);
  });
});

describe('retries, circuit breaker and the operation deadline', () => {
  const emptyList = json(200, ok({ total: 0, data: [] }));
  const unavailable = envelopeError(503, [{ code: 'maintenance', message: 'Back soon' }]);

  it('retries a GET after a 503 and a reset, reporting each attempt and each retry', async () => {
    up.setBehaviour(sequence(unavailable, resetBeforeHeaders, emptyList));
    const retries: unknown[] = [];
    expect(await client({ onRetry: (r) => retries.push(r) }).listProtectionDevices()).toEqual({ total: 0, data: [] });
    expect(up.calls).toHaveLength(3);
    expect(calls.map((c) => [c.attempt, c.status, c.outcome])).toEqual([
      [1, 503, 'UPSTREAM_UNAVAILABLE'],
      [2, null, 'UPSTREAM_UNAVAILABLE'],
      [3, 200, 'ok'],
    ]);
    expect(retries).toEqual([
      { route: 'GET /api/v1/atb', method: 'GET', attempt: 2, delayMs: expect.any(Number), after: 'UPSTREAM_UNAVAILABLE', status: 503 },
      { route: 'GET /api/v1/atb', method: 'GET', attempt: 3, delayMs: expect.any(Number), after: 'UPSTREAM_UNAVAILABLE', status: null },
    ]);
  });

  it('gives up after 1 + retries attempts with the last error; retries: 0 makes one', async () => {
    up.setBehaviour(unavailable);
    expect((await failure(client({ retries: 1 }).listTraffic('7'))).extensions.upstream?.status).toBe(503);
    expect(up.calls).toHaveLength(2);
    up.calls.length = 0;
    await failure(client({ retries: 0 }).listTraffic('7'));
    expect(up.calls).toHaveLength(1);
  });

  it.each<[string, Behaviour]>([
    ['a 4xx', envelopeError(409)],
    ['a 2xx envelope error', envelopeError(200)],
    ['a body that breaks the contract', contractBreaking],
    ['a body that is not JSON', notJson],
    ['a 501', envelopeError(501)],
  ])('does not retry %s', async (_name, behaviour) => {
    up.setBehaviour(behaviour);
    await failure(client().listTraffic('7'));
    expect(up.calls).toHaveLength(1);
  });

  it('does not retry a call that ran out of its deadline', async () => {
    up.setBehaviour(slow(5_000, emptyList));
    expect((await failure(client({ deadlineMs: 100 }).listTraffic('7'))).extensions.code).toBe('UPSTREAM_TIMEOUT');
    expect(up.calls).toHaveLength(1);
  });

  it('never retries a mutation, whatever the failure', async () => {
    for (const behaviour of [unavailable, resetBeforeHeaders, rateLimited(0)]) {
      up.calls.length = 0;
      up.setBehaviour(behaviour);
      await failure(client().deleteWebProtectionRecord('3'));
      expect(up.calls).toHaveLength(1);
    }
  });

  it('waits at least Retry-After before retrying a 429 (0 s: the backoff alone)', async () => {
    up.setBehaviour(sequence(rateLimited(0), rateLimited(1), emptyList));
    await client().listProtectionDevices();
    const [first, second, third] = up.calls.map((c) => c.receivedAt);
    expect(third! - second!).toBeGreaterThanOrEqual(990);
    expect(second! - first!).toBeLessThan(990);
  });

  it('the operation deadline cuts a call short, and a call after it is not sent', async () => {
    up.setBehaviour(slow(5_000, emptyList));
    const operation = client({ deadlineMs: 5_000, operationTimeoutMs: 150 });
    const started = performance.now();
    expect((await failure(operation.listTraffic('7'))).extensions).toEqual({ code: 'UPSTREAM_TIMEOUT' });
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(up.calls).toHaveLength(1);
    // Nothing is sent now, so a mutation is known not to have happened.
    expect((await failure(operation.deleteSecurityFramework('2', '5'))).extensions).toEqual({ code: 'UPSTREAM_TIMEOUT' });
    expect((await failure(operation.listTraffic('7'))).extensions).toEqual({ code: 'UPSTREAM_TIMEOUT' });
    expect(up.calls).toHaveLength(1);
    expect(calls).toHaveLength(1);
  });

  it('a retry is not made when its wait would pass the deadline', async () => {
    up.setBehaviour(rateLimited(1));
    const err = await failure(client({ deadlineMs: 2_000, operationTimeoutMs: 500 }).listTraffic('7'));
    expect(err.extensions.retryAfter).toBe(1);
    expect(up.calls).toHaveLength(1);
  });

  it('opens the circuit after N availability failures, fails fast, then probes after the cool-down', async () => {
    {
      const breaker = { failures: 3, cooldownMs: 200 };
      up.setBehaviour(unavailable);
      await failure(client({ circuitBreaker: breaker, retries: 0 }).listTraffic('7'));
      await failure(client({ circuitBreaker: breaker, retries: 0 }).listTraffic('7'));
      // A 4xx is the upstream answering: it ends the run of failures.
      up.setBehaviour(envelopeError(409));
      await failure(client({ circuitBreaker: breaker, retries: 0 }).listTraffic('7'));
      up.setBehaviour(unavailable);
      await failure(client({ circuitBreaker: breaker }).listTraffic('7')); // 3 attempts: opens on the third
      expect(up.calls).toHaveLength(6);
      expect(circuit(breaker)).toBe('open');

      up.calls.length = 0;
      const fast = await failure(client({ circuitBreaker: breaker }).listTraffic('7'));
      expect(fast.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE' });
      expect(fast.message).toMatch(/^The upstream service is unavailable/);
      expect((await failure(client({ circuitBreaker: breaker }).deleteWebProtectionRecord('3'))).extensions).toEqual({
        code: 'UPSTREAM_UNAVAILABLE',
      });
      expect(up.calls).toHaveLength(0);

      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(circuit(breaker)).toBe('half-open');
      // One probe at a time: the second call fails fast while the first is in flight.
      up.setBehaviour(slow(100, emptyList));
      const probe = client({ circuitBreaker: breaker }).listTraffic('7');
      await new Promise((resolve) => setTimeout(resolve, 20));
      await failure(client({ circuitBreaker: breaker }).listTraffic('7'));
      expect(await probe).toEqual({ total: 0, data: [] });
      expect(up.calls).toHaveLength(1);
      expect(circuit(breaker)).toBe('closed');
      expect(circuitChanges).toEqual(['open', 'half-open', 'closed']);
    }
  });

  it('a failed probe opens the circuit again; a cancelled probe lets the next call probe', async () => {
    const breaker = { failures: 1, cooldownMs: 100 };
    up.setBehaviour(unavailable);
    await failure(client({ circuitBreaker: breaker, retries: 0 }).listTraffic('7'));
    await new Promise((resolve) => setTimeout(resolve, 150));
    await failure(client({ circuitBreaker: breaker }).listTraffic('7'));
    expect(circuit(breaker)).toBe('open');
    expect(up.calls).toHaveLength(2); // the probe is not retried: the circuit opened again

    await new Promise((resolve) => setTimeout(resolve, 150));
    up.setBehaviour(slow(5_000, emptyList));
    const controller = new AbortController();
    const cancelled = client({ circuitBreaker: breaker, signal: controller.signal }).listTraffic('7').catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    expect(await cancelled).toBeInstanceOf(RequestCancelledError);
    expect(circuit(breaker)).toBe('half-open');
    up.setBehaviour(emptyList);
    await client({ circuitBreaker: breaker }).listTraffic('7');
    expect(circuit(breaker)).toBe('closed');
  });

  it('timeouts count towards opening the circuit; a cancellation does not', async () => {
    const breaker = { failures: 2, cooldownMs: 10_000 };
    up.setBehaviour(slow(5_000, emptyList));
    const controller = new AbortController();
    const pending = client({ circuitBreaker: breaker, signal: controller.signal }).listTraffic('7').catch(() => undefined);
    setTimeout(() => controller.abort(), 20);
    await pending;
    await failure(client({ circuitBreaker: breaker, deadlineMs: 50 }).listTraffic('7'));
    expect(circuit(breaker)).toBe('closed');
    await failure(client({ circuitBreaker: breaker, deadlineMs: 50 }).listTraffic('7'));
    expect(circuit(breaker)).toBe('open');
  });

  it('a request cancelled during the wait before a retry stops there', async () => {
    up.setBehaviour(rateLimited(2));
    const controller = new AbortController();
    const pending = client({ signal: controller.signal }).listTraffic('7').catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 100);
    expect(await pending).toBeInstanceOf(RequestCancelledError);
    expect(up.calls).toHaveLength(1);
  });

  it('backoff is full jitter under an exponential ceiling; Retry-After in milliseconds', () => {
    expect(backoffMs(1, { baseMs: 50, capMs: 1_000 }, () => 0.999)).toBe(49);
    expect(backoffMs(3, { baseMs: 50, capMs: 1_000 }, () => 0.999)).toBe(199);
    expect(backoffMs(9, { baseMs: 50, capMs: 1_000 }, () => 0.999)).toBe(999);
    expect(backoffMs(2, { baseMs: 50, capMs: 1_000 }, () => 0)).toBe(0);
    const now = Date.parse('2026-11-21T08:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2_000);
    expect(retryAfterMs('Sat, 21 Nov 2026 08:00:03 GMT', now)).toBe(3_000);
    expect(retryAfterMs('later', now)).toBeUndefined();
  });

  it('the retry budget: a share of the calls, on top of a small reserve', () => {
    const budget = new RetryBudget({ ratio: 0.25, perSecond: 0, max: 3 });
    const granted = () => Array.from({ length: 10 }, () => budget.tryWithdraw()).filter(Boolean).length;
    expect(granted()).toBe(3);
    for (let i = 0; i < 10; i++) budget.deposit();
    expect(granted()).toBe(2);
    for (let i = 0; i < 100; i++) budget.deposit();
    expect(granted()).toBe(3); // never more than the cap
  });
});

describe('errors', () => {
  it('parses Retry-After', () => {
    const now = Date.parse('2026-11-21T08:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Sat, 21 Nov 2026 08:00:10 GMT', now)).toBe(10);
    expect(parseRetryAfter('Sat, 21 Nov 2026 07:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  describe('formatError', () => {
    const bug = new Error('secret db path /var/lib/x');
    const located = new GraphQLError(bug.message, { path: ['a'], originalError: bug });

    it('masks an error without a known code and reports its original', () => {
      const seen: unknown[] = [];
      const format = createFormatError({ onUnexpectedError: (e) => seen.push(e) });
      const out = format(
        { message: bug.message, path: ['a'], extensions: { code: 'INTERNAL_SERVER_ERROR', stacktrace: ['x'] } },
        located,
      );
      expect(out).toEqual({ message: 'Internal server error', path: ['a'], extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      expect(seen).toEqual([bug]);
    });

    it('masks an unknown code, and a known code on something that is not a GraphQLError', () => {
      const format = createFormatError();
      const odd = new GraphQLError('x', { extensions: { code: 'TEAPOT' } });
      expect(format({ message: 'x', extensions: { code: 'TEAPOT' } }, odd).extensions?.code).toBe('INTERNAL_SERVER_ERROR');
      const forged = Object.assign(new Error('leak'), { extensions: { code: 'NOT_FOUND' } });
      const wrapped = new GraphQLError('leak', { path: ['a'], originalError: forged });
      expect(format({ message: 'leak', extensions: { code: 'NOT_FOUND' } }, wrapped).message).toBe('Internal server error');
    });

    it('does not report a cancellation as a bug', () => {
      const seen: unknown[] = [];
      const format = createFormatError({ onUnexpectedError: (e) => seen.push(e) });
      const wrapped = new GraphQLError('c', { path: ['a'], originalError: new RequestCancelledError() });
      expect(format({ message: 'c', extensions: { code: 'INTERNAL_SERVER_ERROR' } }, wrapped).extensions?.code).toBe(
        'INTERNAL_SERVER_ERROR',
      );
      expect(seen).toEqual([]);
    });

    it('keeps the gateway codes and Apollo codes, without stack traces unless asked', async () => {
      up.setBehaviour(envelopeError(403, [{ code: 'forbidden', message: 'not yours' }]));
      const err = await failure(client().listProtectionDevices());
      const wrapped = new GraphQLError(err.message, { path: ['protectionDevices'], originalError: err });
      const formatted = { ...wrapped.toJSON(), extensions: { ...err.extensions, stacktrace: ['at x'] } };
      expect(createFormatError()(formatted, wrapped)).toEqual({
        message: err.message,
        path: ['protectionDevices'],
        extensions: { code: 'FORBIDDEN', upstream: { status: 403, error: 1, messages: [{ code: 'forbidden', message: 'not yours' }] } },
      });
      expect(createFormatError({ includeStacktrace: true })(formatted, wrapped).extensions?.stacktrace).toEqual(['at x']);

      for (const code of ['GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED', 'BAD_USER_INPUT', 'PERSISTED_QUERY_NOT_FOUND']) {
        const apollo = new GraphQLError('Cannot query field "x"', { extensions: { code } });
        expect(createFormatError()({ message: apollo.message, extensions: { code } }, apollo)).toEqual({
          message: apollo.message,
          extensions: { code },
        });
      }
    });
  });
});
