// The OpenAPI document of the v1 contract, and the response validator every v1 suite runs on what
// it receives. Pure unit tests: crafted responses, no server.
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { assertV1Response, loadV1OpenApi } from './helpers/openapi.ts';

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };
const NOW = '2026-11-21T08:15:30Z';

const organization = { id: 1, name: 'Acme Corp', logo: 'https://cdn.example.com/logos/acme.png' };
const evidence = {
  files: ['/api/v1/documents/organizations/1/security-frameworks/3/documents/A.5.1/information-security-policy.pdf'],
  details: 'Policy approved by the board',
  datetime: NOW,
  completed: 1,
  residual_risk: 0.25,
  submitted_by: { user_id: '3f1c2b9e-4d5a-4c8b-9f0e-1a2b3c4d5e6f', user_email: 'ciso@acme.example' },
};
const control = {
  id: 'A.5.1',
  type: 'control',
  title: 'Policies for information security',
  weight: 1.5,
  details: {},
  evidences: [evidence],
  frequency: '0 9 1 */3 *',
  description: 'Management direction for information security',
  evidence_type: 'document',
};
const framework = { id: 3, title: 'ISO 27001 Annex A', security_frameworks: [control] };
const webStat = { datetime: NOW, waf_protection: 12.5, total_managed_requests: 1200 };
const webRecord = {
  id: 12,
  organization,
  email: 'web-admin@acme.example',
  fqdn: 'shop.acme.example',
  check: { stat: { fqdn: 1, proxy: 1, endpoint: 1, datetime: NOW }, status: 1, web_stat: [webStat] },
  endpoint: '203.0.113.10',
  services: ['waf', 'cdn'],
};
const device = {
  id: 7,
  organization,
  atb_key: '9b2e7c1a-5f3d-4e8a-b6c4-2d1f0e9a8b7c',
  type: 'gateway',
  email: 'netops@acme.example',
  check: {
    stat: { vpn: 0, dnsbl: 2, iplist: 1, datetime: NOW },
    status: 1,
    web_stat: [webStat],
    chart_stat: [{ bucket_start: 1763712000, bucket_end: 1763715600, total_requests: 900, malicious_requests: 12 }],
  },
  plugin: { name: 'nginx', config: { mode: 'block' } },
  endpoint: '198.51.100.7',
  privateIP: '192.168.10.7',
  services: ['waf'],
  device_id: 'ATB-0007',
};
const entry = {
  id: 501,
  date_time: '2026-11-21T08:15:30.123Z',
  type: 'waf',
  src_ip: '192.0.2.44',
  dest_ip: '203.0.113.10',
  dest_port: '443',
  log_message: 'ModSecurity: Access denied with code 403 [id "942100"] [msg "SQL Injection Attack"]',
  extra: { action: 'block', rule_id: '942100' },
};
const CSV_HEADER = 'id,date_time,type,src_ip,dest_ip,dest_port,log_message,extra';

const ok = (fields: Record<string, unknown>) => ({ error: 0, messages: [], ...fields });
const failure = (code: string, field?: string) => ({
  error: 1,
  messages: [{ code, message: `${code.replace(/_/g, ' ')} (crafted)`, ...(field ? { field } : {}) }],
});

/** Runs the validator on a crafted response; a body that is not a string is sent as JSON. */
function check(method: string, url: string, status: number, body: unknown, headers: Record<string, string> = JSON_TYPE) {
  assertV1Response(
    { method, url },
    { status, headers: new Headers(headers), body: typeof body === 'string' ? body : JSON.stringify(body) },
  );
}

function rejection(run: () => void): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the validator accepted a response that breaks the document');
}

describe('openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(loadV1OpenApi());
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(loadV1OpenApi().jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  const operations = [
    [1, 'post', '/api/v1/V-Ciso/security-frameworks', 'createSecurityFramework', '201'],
    [2, 'get', '/api/v1/organizations/{organizationid}/security-frameworks', 'listSecurityFrameworks', '200'],
    [3, 'put', '/api/v1/organizations/{organizationid}/security-frameworks/{frameworkid}', 'editSecurityFramework', '200'],
    [4, 'delete', '/api/v1/organizations/{organizationid}/security-frameworks/{frameworkid}', 'deleteSecurityFramework', '200'],
    [5, 'put', '/api/v1/cloud-defender/{id}', 'editWebProtectionRecord', '200'],
    [6, 'delete', '/api/v1/cloud-defender/{id}', 'deleteWebProtectionRecord', '200'],
    [7, 'get', '/api/v1/atb', 'listProtectionDevices', '200'],
    [8, 'get', '/api/v1/atb/{id}/traffic', 'listTrafficLog', '200'],
  ] as const;

  it.each(operations)('declares operation %i as %s %s', (number, method, path, operationId, success) => {
    const operation = loadV1OpenApi().paths[path]?.[method] as Record<string, any> | undefined;
    expect(operation).toBeDefined();
    expect(operation?.['x-operation-number']).toBe(number);
    expect(operation?.operationId).toBe(operationId);
    expect(operation?.description).toEqual(expect.any(String));
    expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining([success, '400', '401', '500']));
    for (const parameter of operation?.parameters ?? []) {
      const resolved = parameter.$ref ? resolveComponent(parameter.$ref) : parameter;
      expect(resolved.description, `${resolved.name} has a description`).toEqual(expect.any(String));
      if (resolved.in === 'path') expect(resolved.schema).toMatchObject({ type: 'integer', minimum: 1 });
    }
  });

  const extensions = [
    ['E1', 'get', '/api/v1/cloud-defender', 'listWebProtectionRecords', '200'],
    ['E2', 'get', '/api/v1/cloud-defender/{id}', 'getWebProtectionRecord', '200'],
  ] as const;

  it.each(extensions)('declares extension %s as %s %s, marked x-extension', (_name, method, path, operationId, success) => {
    const operation = loadV1OpenApi().paths[path]?.[method] as Record<string, any> | undefined;
    expect(operation?.operationId).toBe(operationId);
    expect(operation?.['x-extension']).toBe(true);
    expect(operation?.['x-operation-number']).toBeUndefined();
    expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining([success, '400', '401', '500']));
  });

  it('has exactly those eight operations and the marked extensions', () => {
    const declared = Object.entries(loadV1OpenApi().paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([k]) => ['get', 'put', 'post', 'delete', 'patch'].includes(k))
        .map(([m, operation]) => ({ name: `${m} ${path}`, extension: (operation as Record<string, unknown>)['x-extension'] === true })),
    );
    expect(declared.filter((d) => !d.extension).map((d) => d.name).sort()).toEqual(operations.map(([, m, p]) => `${m} ${p}`).sort());
    expect(declared.filter((d) => d.extension).map((d) => d.name).sort()).toEqual(extensions.map(([, m, p]) => `${m} ${p}`).sort());
  });

  it('requires the X-Service-Token API key on every operation', () => {
    const document = loadV1OpenApi();
    expect(document.security).toEqual([{ serviceToken: [] }]);
    expect((document.components.securitySchemes as Record<string, unknown>).serviceToken).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Service-Token',
    });
  });

  it('describes the query parameters of the device list and the traffic log', () => {
    const paths = loadV1OpenApi().paths;
    const queryParameters = (path: string): Record<string, any>[] =>
      ((paths[path]?.get as { parameters: Record<string, any>[] }).parameters)
        .map((p) => (p.$ref ? resolveComponent(p.$ref) : p))
        .filter((p) => p.in === 'query');
    const names = (path: string) => queryParameters(path).map((p) => p.name).sort();
    expect(names('/api/v1/atb')).toEqual(['limit', 'offset', 'order', 'organization', 'services', 'services[]']);
    expect(names('/api/v1/atb/{id}/traffic')).toEqual(['actions', 'actions[]', 'export', 'limit', 'offset', 'order', 'search']);
    const repeatable = [...queryParameters('/api/v1/atb'), ...queryParameters('/api/v1/atb/{id}/traffic')].filter(
      (p) => p.schema.type === 'array',
    );
    expect(repeatable.map((p) => p.name).sort()).toEqual(['actions', 'actions[]', 'services', 'services[]']);
    for (const p of repeatable) expect(p).toMatchObject({ style: 'form', explode: true });
    const exportParameter = queryParameters('/api/v1/atb/{id}/traffic').find((p) => p.name === 'export');
    expect(exportParameter?.schema.enum).toEqual(['csv', 'ndjson']);
  });
});

function resolveComponent(ref: string): Record<string, any> {
  return ref
    .slice(2)
    .split('/')
    .reduce<any>((node, key) => node[key], loadV1OpenApi());
}

describe('assertV1Response accepts responses that follow the contract', () => {
  const good: [string, string, string, number, unknown][] = [
    ['op 1 create', 'POST', '/api/v1/V-Ciso/security-frameworks?organization=1', 201, ok({ security_framework: 3 })],
    ['op 2 list', 'GET', '/api/v1/organizations/1/security-frameworks', 200, ok({ total: 1, data: [framework] })],
    ['op 2 empty list', 'GET', '/api/v1/organizations/2/security-frameworks', 200, ok({ total: 0, data: [] })],
    ['op 3 edit', 'PUT', '/api/v1/organizations/1/security-frameworks/3', 200, ok({ security_framework: framework })],
    ['op 4 delete', 'DELETE', '/api/v1/organizations/1/security-frameworks/3', 200, ok({ security_framework: framework })],
    ['op 5 edit', 'PUT', '/api/v1/cloud-defender/12', 200, ok({ data: webRecord })],
    ['op 6 delete', 'DELETE', '/api/v1/cloud-defender/12', 200, ok({ data: { ...webRecord, services: [] } })],
    ['E1 list', 'GET', '/api/v1/cloud-defender?limit=5&offset=0&order=-fqdn', 200, ok({ total: 12, data: [webRecord] })],
    ['E2 read', 'GET', '/api/v1/cloud-defender/12', 200, ok({ data: webRecord })],
    ['op 7 list', 'GET', '/api/v1/atb?limit=1&offset=0&order=-privateIP&services=waf&services[]=cdn', 200, ok({ total: 60, data: [device] })],
    ['op 8 page', 'GET', '/api/v1/atb/7/traffic?actions[]=block&search=sql%20942100&order=-date_time', 200, ok({ total: 1, data: [entry] })],
    ['400 with a field', 'PUT', '/api/v1/organizations/1/security-frameworks/3', 400, failure('validation_failed', 'security_frameworks.0.frequency')],
    ['400 for a bad path id', 'GET', '/api/v1/organizations/abc/security-frameworks', 400, failure('validation_failed', 'organizationid')],
    ['401 before 404', 'DELETE', '/api/v1/cloud-defender/999999', 401, failure('unauthenticated')],
    ['403', 'GET', '/api/v1/atb?organization=2', 403, failure('forbidden', 'organization')],
    ['404 unknown id', 'GET', '/api/v1/atb/999/traffic', 404, failure('not_found')],
    ['404 unknown route', 'GET', '/api/v1/nothing-here', 404, failure('not_found')],
    ['401 on an unknown route', 'GET', '/api/v1/nothing-here', 401, failure('unauthenticated')],
    ['413', 'POST', '/api/v1/V-Ciso/security-frameworks', 413, failure('payload_too_large')],
    ['415', 'PUT', '/api/v1/cloud-defender/12', 415, failure('unsupported_media_type')],
    ['500', 'GET', '/api/v1/atb', 500, failure('internal')],
    ['a path with dot segments as an unknown route', 'GET', '/api/v1/nothing/../atb', 404, failure('not_found')],
    ['an absolute URL', 'GET', 'http://127.0.0.1:8080/api/v1/atb?limit=2#top', 200, ok({ total: 0, data: [] })],
  ];
  it.each(good)('%s', (_name, method, url, status, body) => {
    expect(() => check(method, url, status, body)).not.toThrow();
  });

  it('a 405 with an Allow header naming the methods of the path', () => {
    expect(() =>
      check('PATCH', '/api/v1/cloud-defender/12', 405, failure('method_not_allowed'), { ...JSON_TYPE, allow: 'GET, PUT, DELETE' }),
    ).not.toThrow();
  });

  it('a CSV export with its file name', () => {
    const csv = `${CSV_HEADER}\r\n501,2026-11-21T08:15:30.123Z,waf,192.0.2.44,203.0.113.10,443,"ModSecurity: ""x""","{""action"":""block""}"\r\n`;
    expect(() =>
      check('GET', '/api/v1/atb/7/traffic?export=csv', 200, csv, {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': 'attachment; filename="device-7-traffic.csv"',
      }),
    ).not.toThrow();
  });

  it('an NDJSON export, every line a traffic log entry', () => {
    const ndjson = `${JSON.stringify(entry)}\n${JSON.stringify({ ...entry, id: 502, extra: {} })}\n`;
    expect(() =>
      check('GET', '/api/v1/atb/7/traffic?export=ndjson&search=sql', 200, ndjson, {
        'content-type': 'application/x-ndjson',
        'content-disposition': 'attachment; filename="device-7-traffic.ndjson"',
      }),
    ).not.toThrow();
  });

  it('a HEAD answer without a body', () => {
    expect(() => check('HEAD', '/api/v1/atb', 405, '', { ...JSON_TYPE, allow: 'GET' })).not.toThrow();
  });
});

describe('assertV1Response rejects responses that break the contract', () => {
  const list = (d: Record<string, unknown>) => ok({ total: 1, data: [d] });
  const withoutKey = (o: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));

  const bad: [string, string, string, number, unknown, RegExp][] = [
    ['a missing field', 'GET', '/api/v1/atb', 200, list(withoutKey(device, 'atb_key')), /\/data\/0: must have required property 'atb_key'/],
    ['a wrong type', 'GET', '/api/v1/atb', 200, ok({ total: '1', data: [device] }), /\/total: must be integer/],
    ['an extra field in a record', 'PUT', '/api/v1/organizations/1/security-frameworks/3', 200, ok({ security_framework: { ...framework, owner: 'x' } }), /\/security_framework: must NOT have additional properties \("owner"\)/],
    ['an extra field beside the envelope', 'PUT', '/api/v1/cloud-defender/12', 200, { ...ok({ data: webRecord }), record: webRecord }, /unevaluated properties \("record"\)/],
    ['a success envelope with error 1', 'DELETE', '/api/v1/cloud-defender/12', 200, { ...ok({ data: webRecord }), error: 1 }, /\/error: must be equal to constant \(0\)/],
    ['a success envelope with messages', 'GET', '/api/v1/atb', 200, { ...ok({ total: 0, data: [] }), messages: ['note'] }, /\/messages: must NOT have more than 0 items/],
    ['a failure with error 0', 'GET', '/api/v1/atb', 400, { ...failure('validation_failed', 'limit'), error: 0 }, /\/error: must be equal to constant \(1\)/],
    ['failure messages as plain strings', 'GET', '/api/v1/atb', 400, { error: 1, messages: ['limit is invalid'] }, /\/messages\/0: must be object/],
    ['a failure without messages', 'GET', '/api/v1/atb', 500, { error: 1, messages: [] }, /\/messages: must NOT have fewer than 1 items/],
    ['a failure whose first code does not fit the status', 'GET', '/api/v1/atb/7/traffic', 404, failure('forbidden'), /\/messages\/0\/code: must be equal to constant \("not_found"\)/],
    ['a failure message with a stack trace', 'GET', '/api/v1/atb', 500, { error: 1, messages: [{ code: 'internal', message: 'boom\n    at run (/srv/app.ts:10:3)' }] }, /\/messages\/0\/message: must NOT be valid/],
    ['an e-mail that is not one', 'PUT', '/api/v1/cloud-defender/12', 200, ok({ data: { ...webRecord, email: 'nobody' } }), /\/data\/email: must match format "email"/],
    ['an endpoint that is not IPv4', 'PUT', '/api/v1/cloud-defender/12', 200, ok({ data: { ...webRecord, endpoint: '300.1.1.1' } }), /\/data\/endpoint: must match format "ipv4"/],
    ['a service outside the enum', 'PUT', '/api/v1/cloud-defender/12', 200, ok({ data: { ...webRecord, services: ['antivirus'] } }), /\/data\/services\/0: must be equal to one of the allowed values/],
    ['a key that is not a UUID', 'GET', '/api/v1/atb', 200, list({ ...device, atb_key: 'key-7' }), /\/data\/0\/atb_key: must match format "uuid"/],
    ['a timestamp that is not UTC', 'GET', '/api/v1/atb/7/traffic', 200, list({ ...entry, date_time: '2026-11-21T09:15:30+01:00' }), /\/data\/0\/date_time: must match pattern/],
    ['an extra value that is not a string', 'GET', '/api/v1/atb/7/traffic', 200, list({ ...entry, extra: { status: 403 } }), /\/data\/0\/extra\/status: must be string/],
    ['a frequency that is not five cron fields', 'GET', '/api/v1/organizations/1/security-frameworks', 200, list({ ...framework, security_frameworks: [{ ...control, frequency: '0 25 * * *' }] }), /\/frequency: must match pattern/],
    ['an evidence file outside the path rule', 'GET', '/api/v1/organizations/1/security-frameworks', 200, list({ ...framework, security_frameworks: [{ ...control, evidences: [{ ...evidence, files: ['/tmp/policy.pdf'] }] }] }), /\/files\/0: must match pattern/],
    ['an evidence file of another framework', 'GET', '/api/v1/organizations/1/security-frameworks', 200, list({ ...framework, id: 4 }), /evidence file .* names other ids/],
    ['a page over the limit', 'GET', '/api/v1/atb', 200, ok({ total: 501, data: Array.from({ length: 501 }, () => device) }), /\/data: must NOT have more than 500 items/],
    ['an undocumented status', 'GET', '/api/v1/atb', 418, ok({ total: 0, data: [] }), /undocumented status 418 for GET \/api\/v1\/atb/],
    ['a 403 on an operation that names no organization', 'DELETE', '/api/v1/cloud-defender/12', 403, failure('forbidden'), /undocumented status 403 for DELETE \/api\/v1\/cloud-defender\/\{id\}/],
    ['an unknown path that is not 404', 'GET', '/api/v1/atb/7', 200, ok({ data: device }), /undocumented status 200 for unknown route GET \/api\/v1\/atb\/7/],
    ['an unknown method that is not 405', 'PATCH', '/api/v1/cloud-defender/12', 200, ok({ data: webRecord }), /undocumented status 200 for PATCH \/api\/v1\/cloud-defender\/\{id\} \(no such operation\)/],
    ['a success for a query the document calls invalid', 'GET', '/api/v1/atb?limit=0', 200, ok({ total: 0, data: [] }), /request query parameter limit \(answered 200\) \/: must be >= 1/],
    ['an E1 order the document does not know', 'GET', '/api/v1/cloud-defender?order=email', 200, ok({ total: 0, data: [] }), /request query parameter order .*must match pattern/],
    ['a success for an unknown order field', 'GET', '/api/v1/atb/7/traffic?order=-secret', 200, ok({ total: 0, data: [] }), /request query parameter order .*must match pattern/],
    ['a success for a path id that is not a positive integer', 'DELETE', '/api/v1/cloud-defender/abc', 200, ok({ data: webRecord }), /request path parameter id .*must be integer/],
  ];
  it.each(bad)('%s', (_name, method, url, status, body, expected) => {
    expect(rejection(() => check(method, url, status, body))).toMatch(expected);
  });

  it('a JSON body under another content type', () => {
    const message = rejection(() => check('GET', '/api/v1/atb', 200, ok({ total: 0, data: [] }), { 'content-type': 'text/html' }));
    expect(message).toMatch(/content type "text\/html" is not declared \(declared: application\/json\)/);
  });

  it('JSON in a charset other than UTF-8', () => {
    const message = rejection(() =>
      check('GET', '/api/v1/atb', 200, ok({ total: 0, data: [] }), { 'content-type': 'application/json; charset=iso-8859-1' }),
    );
    expect(message).toMatch(/is not UTF-8/);
  });

  it('a body that does not parse', () => {
    expect(rejection(() => check('GET', '/api/v1/atb', 200, '{"error":0,'))).toMatch(/the body is not JSON/);
  });

  it('a 405 without an Allow header, or with one that does not fit', () => {
    expect(rejection(() => check('POST', '/api/v1/atb', 405, failure('method_not_allowed')))).toMatch(/missing header Allow/);
    expect(
      rejection(() => check('POST', '/api/v1/atb', 405, failure('method_not_allowed'), { ...JSON_TYPE, allow: 'POST' })),
    ).toMatch(/does not list GET[\s\S]*lists the refused method POST/);
  });

  it('exports without their file name, or naming another device', () => {
    const csv = `${CSV_HEADER}\n`;
    expect(
      rejection(() => check('GET', '/api/v1/atb/7/traffic?export=csv', 200, csv, { 'content-type': 'text/csv; charset=utf-8' })),
    ).toMatch(/missing header Content-Disposition/);
    expect(
      rejection(() =>
        check('GET', '/api/v1/atb/7/traffic?export=csv', 200, csv, {
          'content-type': 'text/csv',
          'content-disposition': 'attachment; filename="device-8-traffic.csv"',
        }),
      ),
    ).toMatch(/expected "attachment; filename=\\"device-7-traffic.csv\\""/);
  });

  it('a CSV export without its header row', () => {
    const message = rejection(() =>
      check('GET', '/api/v1/atb/7/traffic?export=csv', 200, '501,2026-11-21T08:15:30Z,waf\n', {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': 'attachment; filename="device-7-traffic.csv"',
      }),
    );
    expect(message).toMatch(/body \/: must match pattern/);
  });

  it('an NDJSON export with a bad line', () => {
    const ndjson = `${JSON.stringify(entry)}\n${JSON.stringify(withoutKey(entry, 'src_ip'))}\nnot json\n`;
    const message = rejection(() =>
      check('GET', '/api/v1/atb/7/traffic?export=ndjson', 200, ndjson, {
        'content-type': 'application/x-ndjson',
        'content-disposition': 'attachment; filename="device-7-traffic.ndjson"',
      }),
    );
    expect(message).toMatch(/line 2 \/: must have required property 'src_ip'/);
    expect(message).toMatch(/line 3 is not JSON/);
  });

  it('an export answered with a page, and a file nobody asked for', () => {
    expect(rejection(() => check('GET', '/api/v1/atb/7/traffic?export=ndjson', 200, ok({ total: 0, data: [] })))).toMatch(
      /export=ndjson was requested but the response is application\/json/,
    );
    expect(
      rejection(() =>
        check('GET', '/api/v1/atb/7/traffic', 200, `${CSV_HEADER}\n`, {
          'content-type': 'text/csv',
          'content-disposition': 'attachment; filename="device-7-traffic.csv"',
        }),
      ),
    ).toMatch(/the response is a csv export but export=null was requested/);
  });

  it('names the operation, the status, every error and the start of the body', () => {
    const body = ok({ total: 'many', data: [{ ...device, id: 0, note: 'x'.repeat(2000) }] });
    const message = rejection(() => check('GET', '/api/v1/atb?limit=5', 200, body));
    expect(message).toContain('GET /api/v1/atb (listProtectionDevices), status 200');
    expect(message).toMatch(/body \/total: must be integer/);
    expect(message).toMatch(/body \/data\/0\/id: must be >= 1/);
    expect(message).toMatch(/body \/data\/0: must NOT have additional properties \("note"\)/);
    const excerpt = message.slice(message.lastIndexOf('\nbody: ') + '\nbody: '.length);
    expect(excerpt).toBe(JSON.stringify(body).slice(0, 500));
  });
});
