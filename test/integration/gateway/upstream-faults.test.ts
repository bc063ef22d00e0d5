// Every fault of a misbehaving upstream, through GraphQL over HTTP: the contract's error code, the
// upstream's words normalized in `extensions.upstream` and nothing else of it, partial data beside
// the failed field, and mutations sent once with an unknown outcome said as such.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DeleteWebProtectionRecordDocument,
  FrameworkInTwoOrganizationsDocument,
} from '../../generated/operations.ts';
import { startGatewayOn, type GatewayOn, type GraphQLResponse } from '../../helpers/gateway.ts';
import {
  byPath,
  contractBreaking,
  envelopeError,
  huge,
  json,
  notJson,
  rateLimited,
  refusedUrl,
  resetBeforeHeaders,
  resetMidBody,
  slow,
  startFaultUpstream,
  status5xx,
  truncated,
  type Behaviour,
  type FaultUpstream,
} from '../../helpers/fault-upstream.ts';

const KEY = 'k3y-Faults-Secret-5c0a7e19';
const ORG_ONE = '/api/v1/organizations/1/security-frameworks';
const ORG_TWO = '/api/v1/organizations/2/security-frameworks';
const RECORD = '/api/v1/cloud-defender/3';
const framework = { id: 5, title: 'ISO 27001', security_frameworks: [] };
const frameworkWithNullDetails = {
  ...framework,
  security_frameworks: [
    {
      id: 'A.5.1', type: 'policy', title: 'Policies', weight: 1, details: {}, frequency: '0 9 * * 1', description: 'Policies for security',
      evidence_type: 'document',
      evidences: [{ files: [], details: null, datetime: '2026-11-01T09:00:00Z', completed: 1, residual_risk: null, submitted_by: { user_id: 'u1', user_email: 'a@example.com' } }],
    },
  ],
};
const healthy = json(200, { error: 0, messages: [], total: 1, data: [framework] });
const location = { line: expect.any(Number), column: expect.any(Number) };

const MESSAGE = {
  unavailable: 'The upstream service is unavailable',
  timeout: 'The upstream service did not answer in time',
  rateLimited: 'Too many requests to the upstream service; retry later',
  badResponse: 'The upstream service sent a response that breaks the v1 contract',
};

let fault: FaultUpstream;
let gw: GatewayOn;

beforeAll(async () => {
  fault = await startFaultUpstream();
});
afterAll(async () => {
  await fault?.close();
});
beforeEach(async () => {
  // Cases share one upstream but not a gateway: the circuit and the retry budget are the gateway
  // instance's, so each case starts with a closed circuit and a full budget.
  gw = await startGatewayOn(fault.url, { UPSTREAM_TIMEOUT_MS: '300', UPSTREAM_MAX_BODY_BYTES: '65536' });
  fault.calls.length = 0;
});
afterEach(async () => {
  await gw?.close();
});

/** Nothing of the upstream but its normalized words: no address, no port, no key. */
function expectNothingOfUpstream(response: GraphQLResponse<unknown>, upstream: { url: string; port: number } = fault): void {
  for (const secret of [upstream.url, '127.0.0.1', `:${upstream.port}`, KEY]) expect(response.text).not.toContain(secret);
  expect(response.text).not.toMatch(new RegExp(`\\b${upstream.port}\\b`));
}

function lookups() {
  return gw.query(FrameworkInTwoOrganizationsDocument, { one: '1', two: '2', id: '5' }, KEY);
}

function deleteRecord(on: GatewayOn = gw) {
  return on.query(DeleteWebProtectionRecordDocument, { id: '3' }, KEY);
}

const html = (status: number): Behaviour => (_req, res) => {
  res.writeHead(status, { 'content-type': 'text/html' });
  res.end('<html><body>upstream at 127.0.0.1 is down</body></html>');
};

describe('a read: the faulty field is null with its error, the other keeps its data', () => {
  const quota = [{ code: 'quota', message: 'Quota exceeded', field: 'organization' }, 'try tomorrow'];
  const normalizedQuota = [
    { code: 'quota', message: 'Quota exceeded', field: 'organization' },
    { code: 'unspecified', message: 'try tomorrow' },
  ];
  const maintenance = [{ code: 'maintenance', message: 'Back soon' }];

  it.each<[string, Behaviour, number, string, Record<string, unknown>]>([
    ['a 2xx envelope with error 1', envelopeError(200, quota), 1, 'The upstream service reported an error: Quota exceeded', {
      code: 'UPSTREAM_ERROR',
      upstream: { status: 200, error: 1, messages: normalizedQuota },
    }],
    ['a 503, after retries', envelopeError(503, maintenance), 3, MESSAGE.unavailable, {
      code: 'UPSTREAM_UNAVAILABLE',
      upstream: { status: 503, error: 1, messages: maintenance },
    }],
    ['a 500, after retries', status5xx, 3, MESSAGE.unavailable, {
      code: 'UPSTREAM_UNAVAILABLE',
      upstream: { status: 500, error: 1, messages: [{ code: 'internal', message: 'Internal error' }] },
    }],
    ['a proxy 502 page, after retries', html(502), 3, MESSAGE.unavailable, {
      code: 'UPSTREAM_UNAVAILABLE',
      upstream: { status: 502, error: null, messages: [] },
    }],
    ['a 429 whose Retry-After is past the deadline: at once', rateLimited(120), 1, MESSAGE.rateLimited, {
      code: 'RATE_LIMITED',
      retryAfter: 120,
      upstream: { status: 429, error: 1, messages: [{ code: 'rate_limited', message: 'Slow down' }] },
    }],
    ['a slow answer', slow(3_000, healthy), 1, MESSAGE.timeout, { code: 'UPSTREAM_TIMEOUT' }],
    ['a reset before the headers, after retries', resetBeforeHeaders, 3, MESSAGE.unavailable, { code: 'UPSTREAM_UNAVAILABLE' }],
    ['a reset mid-body, after retries', resetMidBody, 3, MESSAGE.unavailable, { code: 'UPSTREAM_UNAVAILABLE' }],
    ['a truncated body, after retries', truncated, 3, MESSAGE.unavailable, { code: 'UPSTREAM_UNAVAILABLE' }],
    ['a body that is not JSON', notJson, 1, `${MESSAGE.badResponse}: body: expected a JSON object`, {
      code: 'UPSTREAM_BAD_RESPONSE',
      upstream: { status: 200, error: null, messages: [] },
    }],
    ['JSON that breaks the contract', contractBreaking, 1, `${MESSAGE.badResponse}: data: expected an array`, {
      code: 'UPSTREAM_BAD_RESPONSE',
      upstream: { status: 200, error: null, messages: [] },
    }],
    ['an evidence whose details are null (a string in the contract)', json(200, { error: 0, messages: [], total: 1, data: [frameworkWithNullDetails] }), 1,
      `${MESSAGE.badResponse}: data[0].security_frameworks[0].evidences[0].details: expected a string`, {
        code: 'UPSTREAM_BAD_RESPONSE',
        upstream: { status: 200, error: null, messages: [] },
      }],
    ['a body over the cap', huge(1024 * 1024), 1, `${MESSAGE.badResponse}: body: over the 65536-byte limit`, {
      code: 'UPSTREAM_BAD_RESPONSE',
      upstream: { status: 200, error: null, messages: [] },
    }],
    ['a 409', envelopeError(409, [{ code: 'conflict', message: 'Busy' }]), 1, 'The upstream service reported an error: Busy', {
      code: 'UPSTREAM_ERROR',
      upstream: { status: 409, error: 1, messages: [{ code: 'conflict', message: 'Busy' }] },
    }],
    ['a 410', envelopeError(410, [{ code: 'gone', message: 'Gone' }]), 1, 'The upstream service reported an error: Gone', {
      code: 'UPSTREAM_ERROR',
      upstream: { status: 410, error: 1, messages: [{ code: 'gone', message: 'Gone' }] },
    }],
    ['a 401 that echoes the key', envelopeError(401, [{ code: 'unauthenticated', message: `unknown key ${KEY}` }]), 1,
      'The upstream service did not accept the API key: unknown key [redacted]', {
        code: 'UNAUTHENTICATED',
        upstream: { status: 401, error: 1, messages: [{ code: 'unauthenticated', message: 'unknown key [redacted]' }] },
      }],
    ['a 403', envelopeError(403, [{ code: 'forbidden', message: 'Not your organization' }]), 1,
      'Forbidden: Not your organization', {
        code: 'FORBIDDEN',
        upstream: { status: 403, error: 1, messages: [{ code: 'forbidden', message: 'Not your organization' }] },
      }],
    ['a 400', envelopeError(400, [{ code: 'invalid', message: 'organizationid must be an integer', field: 'organizationid' }]), 1,
      'Invalid input: organizationId must be an integer', {
        code: 'BAD_USER_INPUT',
        field: 'organizationId',
        upstream: { status: 400, error: 1, messages: [{ code: 'invalid', message: 'organizationid must be an integer', field: 'organizationid' }] },
      }],
  ])('%s', async (_name, behaviour, attempts, message, extensions) => {
    fault.setBehaviour(byPath({ [ORG_TWO]: behaviour }, healthy));
    const response = await lookups();
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ a: { id: '5', title: 'ISO 27001' }, b: null });
    expect(response.errors).toEqual([{ message, locations: [location], path: ['b'], extensions }]);
    expect(fault.callsTo(ORG_TWO)).toHaveLength(attempts);
    expect(fault.callsTo(ORG_ONE)).toHaveLength(1);
    expectNothingOfUpstream(response);
  });

  it('a 404 on a lookup is null without an error (graphql.md)', async () => {
    fault.setBehaviour(byPath({ [ORG_TWO]: envelopeError(404, [{ code: 'not_found', message: 'No such organization' }]) }, healthy));
    const response = await lookups();
    expect(response.data).toEqual({ a: { id: '5', title: 'ISO 27001' }, b: null });
    expect(response.errors).toBeUndefined();
    expect(fault.callsTo(ORG_TWO)).toHaveLength(1);
  });

  it('a 503 that clears on the second attempt is no error at all', async () => {
    let failures = 1;
    fault.setBehaviour(
      byPath({ [ORG_TWO]: (req, res, body) => (failures-- > 0 ? envelopeError(503)(req, res, body) : healthy(req, res, body)) }, healthy),
    );
    const response = await lookups();
    expect(response.data).toEqual({ a: { id: '5', title: 'ISO 27001' }, b: { id: '5', title: 'ISO 27001' } });
    expect(response.errors).toBeUndefined();
    expect(fault.callsTo(ORG_TWO)).toHaveLength(2);
  });

  it('the key reaches the upstream and no log line', async () => {
    fault.setBehaviour(byPath({ [ORG_TWO]: envelopeError(503) }, healthy));
    await lookups();
    expect(fault.calls.every((call) => call.headers['x-service-token'] === KEY)).toBe(true);
    expect(gw.logs.length).toBeGreaterThan(0);
    expect(gw.logs.join('\n')).not.toContain(KEY);
  });
});

describe('a mutation: sent once, and an unknown outcome said as such', () => {
  it.each<[string, Behaviour, Record<string, unknown>, string]>([
    ['a 503', envelopeError(503, [{ code: 'maintenance', message: 'Back soon' }]), {
      code: 'UPSTREAM_UNAVAILABLE',
      upstream: { status: 503, error: 1, messages: [{ code: 'maintenance', message: 'Back soon' }] },
    }, MESSAGE.unavailable],
    ['a reset before the headers', resetBeforeHeaders, { code: 'UPSTREAM_UNAVAILABLE', outcome: 'UNKNOWN' }, MESSAGE.unavailable],
    ['a reset mid-body', resetMidBody, { code: 'UPSTREAM_UNAVAILABLE', outcome: 'UNKNOWN' }, MESSAGE.unavailable],
    ['a truncated body', truncated, { code: 'UPSTREAM_UNAVAILABLE', outcome: 'UNKNOWN' }, MESSAGE.unavailable],
    ['a slow answer', slow(3_000, healthy), { code: 'UPSTREAM_TIMEOUT', outcome: 'UNKNOWN' }, MESSAGE.timeout],
    ['a 429 with a short Retry-After', rateLimited(1), {
      code: 'RATE_LIMITED',
      retryAfter: 1,
      upstream: { status: 429, error: 1, messages: [{ code: 'rate_limited', message: 'Slow down' }] },
    }, MESSAGE.rateLimited],
    ['a 2xx envelope with error 1', envelopeError(200, [{ code: 'locked', message: 'Record is locked' }]), {
      code: 'UPSTREAM_ERROR',
      upstream: { status: 200, error: 1, messages: [{ code: 'locked', message: 'Record is locked' }] },
    }, 'The upstream service reported an error: Record is locked'],
    ['a 404', envelopeError(404, [{ code: 'not_found', message: 'No such record' }]), {
      code: 'NOT_FOUND',
      upstream: { status: 404, error: 1, messages: [{ code: 'not_found', message: 'No such record' }] },
    }, 'Not found: No such record'],
    ['a 401', envelopeError(401, [{ code: 'unauthenticated', message: 'Unknown key' }]), {
      code: 'UNAUTHENTICATED',
      upstream: { status: 401, error: 1, messages: [{ code: 'unauthenticated', message: 'Unknown key' }] },
    }, 'The upstream service did not accept the API key: Unknown key'],
    ['a 403', envelopeError(403, [{ code: 'forbidden', message: 'Not yours' }]), {
      code: 'FORBIDDEN',
      upstream: { status: 403, error: 1, messages: [{ code: 'forbidden', message: 'Not yours' }] },
    }, 'Forbidden: Not yours'],
    ['a 400', envelopeError(400, [{ code: 'invalid', message: 'id must be positive', field: 'id' }]), {
      code: 'BAD_USER_INPUT',
      field: 'id',
      upstream: { status: 400, error: 1, messages: [{ code: 'invalid', message: 'id must be positive', field: 'id' }] },
    }, 'Invalid input: id must be positive'],
    ['a body that is not JSON', notJson, {
      code: 'UPSTREAM_BAD_RESPONSE',
      upstream: { status: 200, error: null, messages: [] },
    }, `${MESSAGE.badResponse}: body: expected a JSON object`],
  ])('%s', async (_name, behaviour, extensions, message) => {
    fault.setBehaviour(behaviour);
    const response = await deleteRecord();
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ deleteWebProtectionRecord: null });
    expect(response.errors).toEqual([
      { message, locations: [location], path: ['deleteWebProtectionRecord'], extensions },
    ]);
    expect(fault.calls.map((call) => `${call.method} ${call.path}`)).toEqual([`DELETE ${RECORD}`]);
    expectNothingOfUpstream(response);
  });
});

describe('connection refused', () => {
  let refused: string;
  let onRefused: GatewayOn;
  beforeAll(async () => {
    refused = await refusedUrl();
  });
  // A gateway per case: each starts with its own closed circuit.
  beforeEach(async () => {
    onRefused = await startGatewayOn(refused, { UPSTREAM_TIMEOUT_MS: '2000' });
  });
  afterEach(() => onRefused?.close());

  const address = () => ({ url: refused, port: Number(new URL(refused).port) });

  it('a read: UPSTREAM_UNAVAILABLE on each field', async () => {
    const response = await onRefused.query(FrameworkInTwoOrganizationsDocument, { one: '1', two: '2', id: '5' }, KEY);
    expect(response.data).toEqual({ a: null, b: null });
    expect(response.errors?.map((e) => [e.path, e.extensions])).toEqual([
      [['a'], { code: 'UPSTREAM_UNAVAILABLE' }],
      [['b'], { code: 'UPSTREAM_UNAVAILABLE' }],
    ]);
    expectNothingOfUpstream(response, address());
  });

  it('a mutation: UPSTREAM_UNAVAILABLE, known not to have happened (no outcome)', async () => {
    const response = await deleteRecord(onRefused);
    expect(response.data).toEqual({ deleteWebProtectionRecord: null });
    expect(response.errors).toEqual([
      {
        message: MESSAGE.unavailable,
        locations: [location],
        path: ['deleteWebProtectionRecord'],
        extensions: { code: 'UPSTREAM_UNAVAILABLE' },
      },
    ]);
    expectNothingOfUpstream(response, address());
  });
});
