import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Control, Evidence } from '../src/records.ts';
import { TEST_KEYS, dbRows, expectV1Failure, startTestV1, v1Request } from './helpers/v1.ts';
import type { TestV1 } from './helpers/v1.ts';

const CREATE = '/api/v1/V-Ciso/security-frameworks';
const list = (org: number | string) => `/api/v1/organizations/${org}/security-frameworks`;
const one = (org: number | string, id: number | string) => `${list(org)}/${id}`;

type ControlBody = Omit<Control, 'evidences'> & { evidences?: unknown };

function control(id: string, overrides: Partial<ControlBody> = {}): ControlBody {
  return {
    id,
    type: 'control',
    title: `Control ${id}`,
    weight: 1.5,
    details: { owner: 'CISO', tags: ['policy'] },
    frequency: '0 9 * * 1',
    description: `What ${id} requires.`,
    evidence_type: 'document',
    ...overrides,
  };
}

/** The control as the service answers it: defaults filled in, with the given evidences. */
function served(body: ControlBody, evidences: Evidence[] = []): Control {
  return {
    id: body.id,
    type: body.type,
    title: body.title,
    weight: body.weight,
    details: body.details ?? {},
    evidences,
    frequency: body.frequency,
    description: body.description ?? '',
    evidence_type: body.evidence_type,
  };
}

function evidence(org: number, framework: number, controlId: string, name: string): Evidence {
  return {
    files: [`/api/v1/documents/organizations/${org}/security-frameworks/${framework}/documents/${controlId}/${name}`],
    details: `Evidence ${name}`,
    datetime: '2026-10-01T10:00:00Z',
    completed: 1,
    residual_risk: 0.25,
    submitted_by: { user_id: '0b6c2f0e-8d4a-4c55-9a51-3f0a4b8e2c11', user_email: 'auditor@northwind.example' },
  };
}

let service: TestV1;

// A framework that the rule cases send their bad bodies to, as edits.
let editTarget: number;

beforeAll(async () => {
  service = await startTestV1();
  editTarget = await createOk('Edit target', [control('C1')], 1);
});
afterAll(async () => {
  await service?.close();
});

async function create(body: unknown, { token = TEST_KEYS.org1, org }: { token?: string; org?: number } = {}) {
  return v1Request(service, 'POST', org === undefined ? CREATE : `${CREATE}?organization=${org}`, { token, body });
}

async function createOk(title: string, controls: ControlBody[], org = 1): Promise<number> {
  const response = await create({ title, security_frameworks: controls }, { token: TEST_KEYS.admin, org });
  expect(response.status).toBe(201);
  return response.json.security_framework as number;
}

describe('create (operation 1)', () => {
  it('creates in the key organization and answers 201 with the bare id', async () => {
    const controls = [control('A.5.1'), control('A.5.2', { weight: 0, details: {}, description: '' })];
    const response = await create({ title: 'ISO 27001 Annex A', security_frameworks: controls });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const id = response.json.security_framework;
    expect(response.json).toEqual({ error: 0, messages: [], security_framework: id });
    expect(Number.isInteger(id) && id > 0).toBe(true);

    const listed = await v1Request(service, 'GET', list(1), { token: TEST_KEYS.org1 });
    expect(listed.json.data.find((f: { id: number }) => f.id === id)).toEqual({
      id,
      title: 'ISO 27001 Annex A',
      security_frameworks: controls.map((c) => served(c)),
    });
  });

  it('fills details and description with their defaults and ignores sent evidences', async () => {
    const bare: ControlBody = { id: 'PR.AC-1', type: 'control', title: 'Identities', weight: 2, frequency: '*/15 * * * *', evidence_type: 'screenshot' } as ControlBody;
    const sent = { ...bare, evidences: [evidence(1, 99, 'PR.AC-1', 'forged.pdf')] };
    const id = await createOk('NIST CSF', [sent], 1);
    const listed = await v1Request(service, 'GET', list(1));
    expect(listed.json.data.find((f: { id: number }) => f.id === id)).toEqual({
      id,
      title: 'NIST CSF',
      security_frameworks: [{ ...bare, details: {}, description: '', evidences: [] }],
    });
  });

  it('needs ?organization= with an admin key, naming an existing organization', async () => {
    const body = { title: 'T', security_frameworks: [] };
    expectV1Failure(await create(body, { token: TEST_KEYS.admin }), 400, [{ code: 'validation_failed', field: 'organization' }]);
    expectV1Failure(await create(body, { token: TEST_KEYS.admin, org: 999 }), 400, [
      { code: 'validation_failed', field: 'organization' },
    ]);
    for (const bad of ['0', '-1', 'x', '1.5']) {
      const response = await v1Request(service, 'POST', `${CREATE}?organization=${bad}`, { body });
      expectV1Failure(response, 400, [{ code: 'validation_failed', field: 'organization' }]);
    }
    const created = await create(body, { token: TEST_KEYS.admin, org: 3 });
    expect(created.status).toBe(201);
    const listed = await v1Request(service, 'GET', list(3));
    expect(listed.json.data.map((f: { id: number }) => f.id)).toContain(created.json.security_framework);
  });

  it('lets an organization key name its own organization, and refuses another (403)', async () => {
    const body = { title: 'Own', security_frameworks: [] };
    expect((await create(body, { token: TEST_KEYS.org2, org: 2 })).status).toBe(201);
    expectV1Failure(await create(body, { token: TEST_KEYS.org2, org: 1 }), 403, [{ code: 'forbidden', field: 'organization' }]);
  });
});

function deep(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

describe('body rules (create and edit alike)', () => {
  const valid = () => ({ title: 'Valid', security_frameworks: [control('C1'), control('C2')] });
  const cases: { name: string; body: unknown; expected: { code: string; field?: string }[] }[] = [
    { name: 'missing title', body: { security_frameworks: [] }, expected: [{ code: 'validation_failed', field: 'title' }] },
    { name: 'empty title', body: { ...valid(), title: '' }, expected: [{ code: 'validation_failed', field: 'title' }] },
    { name: 'title of 201 characters', body: { ...valid(), title: 'x'.repeat(201) }, expected: [{ code: 'validation_failed', field: 'title' }] },
    { name: 'title not a string', body: { ...valid(), title: 5 }, expected: [{ code: 'validation_failed', field: 'title' }] },
    { name: 'missing controls', body: { title: 'T' }, expected: [{ code: 'validation_failed', field: 'security_frameworks' }] },
    { name: 'controls not an array', body: { title: 'T', security_frameworks: {} }, expected: [{ code: 'validation_failed', field: 'security_frameworks' }] },
    {
      name: '501 controls',
      body: { title: 'T', security_frameworks: Array.from({ length: 501 }, (_, i) => control(`C${i}`)) },
      expected: [{ code: 'validation_failed', field: 'security_frameworks' }],
    },
    { name: 'control not an object', body: { title: 'T', security_frameworks: ['C1'] }, expected: [{ code: 'validation_failed', field: 'security_frameworks.0' }] },
    { name: 'empty control id', body: { title: 'T', security_frameworks: [control('')] }, expected: [{ code: 'validation_failed', field: 'security_frameworks.0.id' }] },
    { name: 'control id of 101 characters', body: { title: 'T', security_frameworks: [control('i'.repeat(101))] }, expected: [{ code: 'validation_failed', field: 'security_frameworks.0.id' }] },
    {
      name: 'repeated control id',
      body: { title: 'T', security_frameworks: [control('C1'), control('C2'), control('C1')] },
      expected: [{ code: 'validation_failed', field: 'security_frameworks.2.id' }],
    },
    { name: 'empty type', body: { title: 'T', security_frameworks: [control('C1', { type: '' })] }, expected: [{ code: 'validation_failed', field: 'security_frameworks.0.type' }] },
    { name: 'empty control title', body: { title: 'T', security_frameworks: [control('C1', { title: '' })] }, expected: [{ code: 'validation_failed', field: 'security_frameworks.0.title' }] },
    { name: 'empty evidence_type', body: { title: 'T', security_frameworks: [control('C1', { evidence_type: '' })] }, expected: [{ code: 'validation_failed', field: 'security_frameworks.0.evidence_type' }] },
    { name: 'negative weight', body: { title: 'T', security_frameworks: [control('C1', { weight: -0.5 })] }, expected: [{ code: 'validation_failed', field: 'security_frameworks.0.weight' }] },
    { name: 'weight as text', body: { title: 'T', security_frameworks: [control('C1', { weight: '1' as unknown as number })] }, expected: [{ code: 'validation_failed', field: 'security_frameworks.0.weight' }] },
    { name: 'details an array', body: { title: 'T', security_frameworks: [control('C1', { details: [] as unknown as Record<string, unknown> })] }, expected: [{ code: 'validation_failed', field: 'security_frameworks.0.details' }] },
    { name: 'description not a string', body: { title: 'T', security_frameworks: [control('C1', { description: 3 as unknown as string })] }, expected: [{ code: 'validation_failed', field: 'security_frameworks.0.description' }] },
    {
      name: 'a string over 10,000 characters',
      body: { title: 'T', security_frameworks: [control('C1', { description: 'd'.repeat(10_001) })] },
      expected: [{ code: 'validation_failed', field: 'security_frameworks.0.description' }],
    },
    {
      name: 'a string over 10,000 characters inside details',
      body: { title: 'T', security_frameworks: [control('C1', { details: { notes: ['ok', 'n'.repeat(10_001)] } })] },
      expected: [{ code: 'validation_failed', field: 'security_frameworks.0.details.notes.1' }],
    },
    {
      name: 'missing required control fields',
      body: { title: 'T', security_frameworks: [{}] },
      expected: ['id', 'type', 'title', 'evidence_type', 'weight', 'frequency'].map((name) => ({
        code: 'validation_failed',
        field: `security_frameworks.0.${name}`,
      })),
    },
    {
      name: 'details nested deeper than 32 levels',
      body: { title: 'T', security_frameworks: [control('C1', { details: deep(40) })] },
      expected: [{ code: 'validation_failed', field: `security_frameworks.0.details${'.a'.repeat(32)}` }],
    },
    { name: 'unknown top-level field', body: { ...valid(), owner: 'me' }, expected: [{ code: 'unknown_field', field: 'owner' }] },
    {
      name: 'unknown control field',
      body: { title: 'T', security_frameworks: [control('C1'), { ...control('C2'), colour: 'red' }] },
      expected: [{ code: 'unknown_field', field: 'security_frameworks.1.colour' }],
    },
    {
      name: 'several problems at once',
      body: { title: '', extra: 1, security_frameworks: [control('C1'), control('C2'), control('C3', { frequency: '61 * * * *', weight: -1 })] },
      expected: [
        { code: 'unknown_field', field: 'extra' },
        { code: 'validation_failed', field: 'title' },
        { code: 'validation_failed', field: 'security_frameworks.2.weight' },
        { code: 'validation_failed', field: 'security_frameworks.2.frequency' },
      ],
    },
  ];

  for (const { name, body, expected } of cases) {
    it(`rejects ${name} with 400 naming the field, on create and on edit`, async () => {
      expectV1Failure(await create(body), 400, expected);
      expectV1Failure(await v1Request(service, 'PUT', one(1, editTarget), { token: TEST_KEYS.org1, body }), 400, expected);
    });
  }

  it('rejects a body that is not an object', async () => {
    for (const body of [[], 'text', 42, null]) {
      expectV1Failure(await create(body), 400, [{ code: 'validation_failed' }]);
    }
  });

  it('accepts the boundaries: title of 200, id of 100, 10,000-character strings, 500 controls', async () => {
    const edge = control('i'.repeat(100), { description: 'd'.repeat(10_000), weight: 0, details: { note: 'n'.repeat(10_000) } });
    const id = await createOk('t'.repeat(200), [edge], 1);
    const listed = await v1Request(service, 'GET', list(1));
    expect(listed.json.data.find((f: { id: number }) => f.id === id)).toEqual({
      id,
      title: 't'.repeat(200),
      security_frameworks: [served(edge)],
    });
    const many = Array.from({ length: 500 }, (_, i) => control(`M${i}`));
    expect((await create({ title: 'Many', security_frameworks: many })).status).toBe(201);
  });

  const goodFrequencies = ['* * * * *', '0 0 1 1 0', '59 23 31 12 7', '*/5 1-5 1,15,31 */3 1-5/2', '0-30/10 0,12 * 1-12 0-7'];
  const badFrequencies = [
    '* * * *',
    '* * * * * *',
    '60 * * * *',
    '* 24 * * *',
    '* * 0 * *',
    '* * 32 * *',
    '* * * 0 *',
    '* * * 13 *',
    '* * * * 8',
    '*/0 * * * *',
    '5-1 * * * *',
    '5/2 * * * *',
    'MON * * * *',
    '* * * * MON',
    '1,,2 * * * *',
    '*  * * * *',
    ' * * * * *',
    '',
  ];
  it('accepts cron frequencies within the field bounds', async () => {
    const controls = goodFrequencies.map((frequency, i) => control(`F${i}`, { frequency }));
    const id = await createOk('Cron', controls);
    const listed = await v1Request(service, 'GET', list(1));
    expect(listed.json.data.find((f: { id: number }) => f.id === id).security_frameworks.map((c: Control) => c.frequency)).toEqual(
      goodFrequencies,
    );
  });
  it('rejects frequencies that are not five valid cron fields', async () => {
    const controls = badFrequencies.map((frequency, i) => control(`F${i}`, { frequency }));
    expectV1Failure(
      await create({ title: 'Bad cron', security_frameworks: controls }),
      400,
      badFrequencies.map((_, i) => ({ code: 'validation_failed', field: `security_frameworks.${i}.frequency` })),
    );
  });
});

describe('list (operation 2)', () => {
  it('lists only the organization frameworks that are not deleted, by id, with total', async () => {
    const first = await createOk('First', [control('X1')], 2);
    const second = await createOk('Second', [], 2);
    const third = await createOk('Third', [control('X3')], 2);
    expect((await v1Request(service, 'DELETE', one(2, second))).status).toBe(200);
    await createOk('Elsewhere', [], 3);

    const response = await v1Request(service, 'GET', list(2), { token: TEST_KEYS.org2 });
    expect(response.status).toBe(200);
    const ids = response.json.data.map((f: { id: number }) => f.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    expect(ids).toEqual(expect.arrayContaining([first, third]));
    expect(ids).not.toContain(second);
    expect(response.json).toEqual({ error: 0, messages: [], total: ids.length, data: response.json.data });
    expect(response.json.data.find((f: { id: number }) => f.id === third)).toEqual({
      id: third,
      title: 'Third',
      security_frameworks: [served(control('X3'))],
    });
  });

  it('answers an empty list for an organization without frameworks', async () => {
    const fresh = await startTestV1();
    try {
      const response = await v1Request(fresh, 'GET', list(3));
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ error: 0, messages: [], total: 0, data: [] });
    } finally {
      await fresh.close();
    }
  });

  it('is 404 for an organization that does not exist (admin key), 403 for another organization (org key)', async () => {
    expectV1Failure(await v1Request(service, 'GET', list(999)), 404, [{ code: 'not_found' }]);
    expectV1Failure(await v1Request(service, 'GET', list(2), { token: TEST_KEYS.org1 }), 403, [
      { code: 'forbidden', field: 'organizationid' },
    ]);
    expectV1Failure(await v1Request(service, 'GET', list(999), { token: TEST_KEYS.org1 }), 403, [
      { code: 'forbidden', field: 'organizationid' },
    ]);
  });

  it('rejects an organization id that is not a positive integer', async () => {
    for (const bad of ['0', '-3', 'abc', '1.0', '01', '99999999999999999999']) {
      expectV1Failure(await v1Request(service, 'GET', list(bad)), 400, [{ code: 'validation_failed', field: 'organizationid' }]);
    }
  });
});

describe('edit (operation 3)', () => {
  it('replaces title and the ordered controls and answers the framework after the edit', async () => {
    const id = await createOk('Before', [control('A'), control('B')], 1);
    const controls = [control('C', { weight: 3.25 }), control('A', { title: 'Renamed A', frequency: '30 2 * * 0' })];
    const response = await v1Request(service, 'PUT', one(1, id), { token: TEST_KEYS.org1, body: { title: 'After', security_frameworks: controls } });
    expect(response.status).toBe(200);
    const expected = { id, title: 'After', security_frameworks: controls.map((c) => served(c)) };
    expect(response.json).toEqual({ error: 0, messages: [], security_framework: expected });
    const listed = await v1Request(service, 'GET', list(1));
    expect(listed.json.data.find((f: { id: number }) => f.id === id)).toEqual(expected);
  });

  it('keeps evidence by control id, across edits and across removal and return of a control', async () => {
    const id = await service.store.createFramework(1, { title: 'Evidence', security_frameworks: [control('E1'), control('E2')] });
    const e1a = evidence(1, id, 'E1', 'policy.pdf');
    const e1b = evidence(1, id, 'E1', 'review.pdf');
    const e2 = evidence(1, id, 'E2', 'scan.png');
    await service.store.addEvidence(id, 'E1', e1a);
    await service.store.addEvidence(id, 'E1', e1b);
    await service.store.addEvidence(id, 'E2', e2);

    const listed = await v1Request(service, 'GET', list(1));
    expect(listed.json.data.find((f: { id: number }) => f.id === id)).toEqual({
      id,
      title: 'Evidence',
      security_frameworks: [served(control('E1'), [e1a, e1b]), served(control('E2'), [e2])],
    });

    // E2 goes (its evidence stays in storage); sent evidences are ignored, never stored or deleted.
    const withoutE2 = await v1Request(service, 'PUT', one(1, id), {
      body: { title: 'Evidence v2', security_frameworks: [{ ...control('E1', { weight: 9 }), evidences: [] }, control('E3')] },
    });
    expect(withoutE2.json.security_framework).toEqual({
      id,
      title: 'Evidence v2',
      security_frameworks: [served(control('E1', { weight: 9 }), [e1a, e1b]), served(control('E3'))],
    });

    // E2 comes back first in the list: its evidence with it.
    const back = await v1Request(service, 'PUT', one(1, id), {
      body: { title: 'Evidence v3', security_frameworks: [control('E2', { title: 'Back' }), control('E1')] },
    });
    expect(back.status).toBe(200);
    expect(back.json.security_framework).toEqual({
      id,
      title: 'Evidence v3',
      security_frameworks: [served(control('E2', { title: 'Back' }), [e2]), served(control('E1'), [e1a, e1b])],
    });
    const after = await v1Request(service, 'GET', list(1), { token: TEST_KEYS.org1 });
    expect(after.json.data.find((f: { id: number }) => f.id === id)).toEqual(back.json.security_framework);
  });

  it('is 404 for an unknown framework, another organization\'s framework, or through another organization path', async () => {
    const body = { title: 'T', security_frameworks: [] };
    const ofOrg2 = await createOk('Org 2 only', [], 2);
    expectV1Failure(await v1Request(service, 'PUT', one(1, 987654), { body }), 404, [{ code: 'not_found' }]);
    expectV1Failure(await v1Request(service, 'PUT', one(1, ofOrg2), { token: TEST_KEYS.org1, body }), 404, [{ code: 'not_found' }]);
    expectV1Failure(await v1Request(service, 'PUT', one(1, ofOrg2), { token: TEST_KEYS.admin, body }), 404, [{ code: 'not_found' }]);
    expectV1Failure(await v1Request(service, 'PUT', one(2, ofOrg2), { token: TEST_KEYS.org1, body }), 403, [
      { code: 'forbidden', field: 'organizationid' },
    ]);
    const untouched = await v1Request(service, 'GET', list(2));
    expect(untouched.json.data.find((f: { id: number }) => f.id === ofOrg2).title).toBe('Org 2 only');
  });

  it('rejects path ids that are not positive integers, naming each', async () => {
    const body = { title: 'T', security_frameworks: [] };
    expectV1Failure(await v1Request(service, 'PUT', one(1, 'x'), { body }), 400, [{ code: 'validation_failed', field: 'frameworkid' }]);
    expectV1Failure(await v1Request(service, 'PUT', one('a', 0), { body }), 400, [
      { code: 'validation_failed', field: 'organizationid' },
      { code: 'validation_failed', field: 'frameworkid' },
    ]);
  });
});

describe('soft delete (operation 4)', () => {
  it('answers the framework as it was, then hides it: absent from the list, edit and delete 404', async () => {
    const id = await service.store.createFramework(1, { title: 'Doomed', security_frameworks: [control('D1')] });
    const kept = evidence(1, id, 'D1', 'kept.pdf');
    await service.store.addEvidence(id, 'D1', kept);

    const response = await v1Request(service, 'DELETE', one(1, id), { token: TEST_KEYS.org1 });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      error: 0,
      messages: [],
      security_framework: { id, title: 'Doomed', security_frameworks: [served(control('D1'), [kept])] },
    });
    const listed = await v1Request(service, 'GET', list(1));
    expect(listed.json.data.map((f: { id: number }) => f.id)).not.toContain(id);
    expectV1Failure(await v1Request(service, 'DELETE', one(1, id)), 404, [{ code: 'not_found' }]);
    expectV1Failure(await v1Request(service, 'PUT', one(1, id), { body: { title: 'Back', security_frameworks: [] } }), 404, [
      { code: 'not_found' },
    ]);
    // Kept in storage, only marked.
    const [row] = await dbRows<{ deleted_at: string }>(service, 'SELECT deleted_at FROM security_frameworks WHERE id = ?', [id]);
    expect(row!.deleted_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it('is 404 for another organization\'s framework and 403 through another organization path', async () => {
    const ofOrg2 = await createOk('Not yours', [], 2);
    expectV1Failure(await v1Request(service, 'DELETE', one(1, ofOrg2)), 404, [{ code: 'not_found' }]);
    expectV1Failure(await v1Request(service, 'DELETE', one(2, ofOrg2), { token: TEST_KEYS.org1 }), 403, [
      { code: 'forbidden', field: 'organizationid' },
    ]);
    expectV1Failure(await v1Request(service, 'DELETE', one(1, '1e3')), 400, [{ code: 'validation_failed', field: 'frameworkid' }]);
    const listed = await v1Request(service, 'GET', list(2));
    expect(listed.json.data.map((f: { id: number }) => f.id)).toContain(ofOrg2);
  });
});

describe('with demo data', () => {
  let demo: TestV1;
  beforeAll(async () => {
    demo = await startTestV1({ seed: 'demo' });
  });
  afterAll(async () => {
    await demo?.close();
  });

  it('takes back what it served, and keeps evidence across removal and return of a control', async () => {
    const orgKey = demo.demoKeys.find((k) => k.organizationId === 1)!.key;
    const listed = await v1Request(demo, 'GET', list(1), { token: orgKey });
    expect(listed.status).toBe(200);
    const framework = listed.json.data.find((f: { security_frameworks: Control[] }) =>
      f.security_frameworks.some((c) => c.evidences.length > 0),
    ) as { id: number; title: string; security_frameworks: Control[] };
    expect(framework).toBeDefined();

    // A client may send back exactly what it read, evidences included.
    const { id, ...body } = framework;
    const same = await v1Request(demo, 'PUT', one(1, id), { token: orgKey, body });
    expect(same.status).toBe(200);
    expect(same.json.security_framework).toEqual(framework);

    const withEvidence = framework.security_frameworks.findIndex((c) => c.evidences.length > 0);
    const without = framework.security_frameworks.filter((_, i) => i !== withEvidence);
    const removed = await v1Request(demo, 'PUT', one(1, id), { token: orgKey, body: { title: framework.title, security_frameworks: without } });
    expect(removed.json.security_framework).toEqual({ id, title: framework.title, security_frameworks: without });

    const restored = await v1Request(demo, 'PUT', one(1, id), { token: orgKey, body });
    expect(restored.json.security_framework).toEqual(framework);
  });
});
