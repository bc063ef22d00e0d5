// Security frameworks through the gateway, over HTTP, checked field by field against what the v1
// service holds: the list connection (every field, paging both ways, argument and cursor errors,
// access), the lookup and its upstream cost, and the three mutations with the upstream's errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecurityFramework } from 'reference-service/testing';
import { onlyError, startStack, TEST_KEYS, type Stack } from '../../helpers/gateway.ts';
import { v1Request } from '../../helpers/v1.ts';
import { expectPageSizeRefused } from '../../helpers/connection-checks.ts';
import {
  CreateFailingThenUpdateDocument,
  CreateFrameworkDocument,
  DeleteFrameworkDocument,
  FrameworkDocument,
  FrameworkIdsDocument,
  FrameworkLookupsTwoOrganizationsDocument,
  FrameworkLookupsWithListDocument,
  FrameworkNodesDocument,
  FrameworksDocument,
  UpdateFrameworkDocument,
  UpdateTwoFrameworksDocument,
  type SecurityFrameworkInput,
} from '../../generated/operations.ts';
import * as oracle from '../../helpers/oracle.ts';
import type { V1Control, V1Framework } from '../../helpers/oracle.ts';

let stack: Stack;

/** Extra frameworks of organization 3, so that its list is long enough to page through. */
const PAGING_EXTRA = 5;

/** A framework as the gateway must show it: the tests' one oracle (test/helpers/oracle.ts). */
const expectedFramework = (framework: SecurityFramework) => oracle.securityFramework(framework as unknown as V1Framework);

/** What v1 holds for an organization, asked directly (not through the counting proxy). */
async function v1Frameworks(organizationId: number): Promise<SecurityFramework[]> {
  const response = await v1Request(stack.v1, 'GET', `/api/v1/organizations/${organizationId}/security-frameworks`);
  expect(response.status).toBe(200);
  expect(response.json.total).toBe(response.json.data.length);
  return response.json.data as SecurityFramework[];
}

/** A control as the gateway takes it, from a control v1 holds. */
function controlInput(control: SecurityFramework['security_frameworks'][number]) {
  return oracle.controlFields(control as unknown as V1Control);
}

const validControl = {
  controlId: 'V-1',
  type: 'control',
  title: 'Valid control',
  weight: 1,
  details: {},
  frequency: '0 9 * * 1',
  description: '',
  evidenceType: 'document',
};

beforeAll(async () => {
  // Demo data: two frameworks per organization whose controls carry evidence (only seeding makes
  // evidence). The TEST_KEYS are accepted beside the demo keys.
  stack = await startStack({ key: TEST_KEYS.admin });
  for (let i = 1; i <= PAGING_EXTRA; i++) {
    const created = await v1Request(stack.v1, 'POST', '/api/v1/V-Ciso/security-frameworks?organization=3', {
      body: {
        title: `Paging framework ${i}`,
        security_frameworks: [
          { id: `P-${i}`, type: 'control', title: `Paged control ${i}`, weight: i, details: {}, frequency: '0 9 * * 1', description: '', evidence_type: 'document' },
        ],
      },
    });
    expect(created.status, created.body).toBe(201);
  }
});

afterAll(async () => {
  await stack?.close();
});

describe('securityFrameworks', () => {
  it('shows every field of every framework, control and evidence as v1 holds them', async () => {
    let evidences = 0;
    for (const organizationId of [1, 2, 3]) {
      const held = await v1Frameworks(organizationId);
      expect(held.length).toBeGreaterThan(0);
      const response = await stack.query(FrameworkNodesDocument, { organizationId: String(organizationId) });
      expect(response.status).toBe(200);
      expect(response.errors).toBeUndefined();
      const connection = response.data!.securityFrameworks!;
      expect(connection.nodes).toEqual(held.map(expectedFramework));
      expect(connection.totalCount).toBe(held.length);
      expect(connection.pageInfo.hasNextPage).toBe(false);
      expect(connection.pageInfo.hasPreviousPage).toBe(false);
      for (const framework of connection.nodes) {
        for (const control of framework.controls) {
          expect(typeof control.details === 'object' && control.details !== null && !Array.isArray(control.details)).toBe(true);
          evidences += control.evidences.length;
          const folder = `/api/v1/documents/organizations/${organizationId}/security-frameworks/${framework.id}/documents/${control.controlId}/`;
          for (const evidence of control.evidences) {
            for (const file of evidence.files) expect(file.startsWith(folder) && !file.slice(folder.length).includes('/'), file).toBe(true);
          }
        }
      }
    }
    // The comparison above covered evidence fields only if there is evidence.
    expect(evidences).toBeGreaterThan(10);
  });

  it('gives edges and nodes the same frameworks, each edge with its own cursor', async () => {
    const held = await v1Frameworks(1);
    const response = await stack.query(FrameworksDocument, { organizationId: '1', first: 50 });
    const connection = response.data!.securityFrameworks!;
    expect(connection.edges.map((edge) => edge.node)).toEqual(held.map(expectedFramework));
    expect(connection.nodes).toEqual(held.map(expectedFramework));
    const cursors = connection.edges.map((edge) => edge.cursor);
    expect(new Set(cursors).size).toBe(held.length);
    expect(connection.pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: false,
      startCursor: cursors[0],
      endCursor: cursors.at(-1),
    });
  });

  it('without first or last holds every framework', async () => {
    const ids = (await v1Frameworks(3)).map((framework) => String(framework.id));
    expect(ids).toHaveLength(2 + PAGING_EXTRA);
    const connection = (await stack.query(FrameworkIdsDocument, { organizationId: '3' })).data!.securityFrameworks!;
    expect(connection.nodes.map((node) => node.id)).toEqual(ids);
    expect(connection.totalCount).toBe(ids.length);
    expect(connection.pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: false,
      startCursor: connection.edges[0]!.cursor,
      endCursor: connection.edges.at(-1)!.cursor,
    });
  });

  it('pages forward through the whole list with exact page info, without duplicates or gaps', async () => {
    const ids = (await v1Frameworks(3)).map((framework) => String(framework.id));
    for (const size of [1, 2, 3, ids.length, 100]) {
      const seen: string[] = [];
      const cursors = new Set<string>();
      let after: string | undefined;
      for (let page = 0; ; page++) {
        expect(page).toBeLessThan(ids.length);
        const connection = (await stack.query(FrameworkIdsDocument, { organizationId: '3', first: size, ...(after ? { after } : {}) }))
          .data!.securityFrameworks!;
        const start = seen.length;
        const want = ids.slice(start, start + size);
        expect(connection.nodes.map((node) => node.id)).toEqual(want);
        expect(connection.edges.map((edge) => edge.node.id)).toEqual(want);
        expect(connection.totalCount).toBe(ids.length);
        expect(connection.pageInfo).toEqual({
          hasPreviousPage: start > 0,
          hasNextPage: start + want.length < ids.length,
          startCursor: connection.edges[0]!.cursor,
          endCursor: connection.edges.at(-1)!.cursor,
        });
        for (const edge of connection.edges) cursors.add(edge.cursor);
        seen.push(...want);
        if (!connection.pageInfo.hasNextPage) break;
        after = connection.pageInfo.endCursor!;
      }
      expect(seen).toEqual(ids);
      expect(cursors.size).toBe(ids.length);
    }
  });

  it('pages backward through the whole list with exact page info, without duplicates or gaps', async () => {
    const ids = (await v1Frameworks(3)).map((framework) => String(framework.id));
    for (const size of [1, 2, 3, ids.length, 100]) {
      let seen: string[] = [];
      let before: string | undefined;
      for (let page = 0; ; page++) {
        expect(page).toBeLessThan(ids.length);
        const connection = (await stack.query(FrameworkIdsDocument, { organizationId: '3', last: size, ...(before ? { before } : {}) }))
          .data!.securityFrameworks!;
        const end = ids.length - seen.length;
        const start = Math.max(0, end - size);
        const want = ids.slice(start, end);
        expect(connection.nodes.map((node) => node.id)).toEqual(want);
        expect(connection.edges.map((edge) => edge.node.id)).toEqual(want);
        expect(connection.totalCount).toBe(ids.length);
        expect(connection.pageInfo).toEqual({
          hasPreviousPage: start > 0,
          hasNextPage: end < ids.length,
          startCursor: connection.edges[0]!.cursor,
          endCursor: connection.edges.at(-1)!.cursor,
        });
        seen = [...want, ...seen];
        if (!connection.pageInfo.hasPreviousPage) break;
        before = connection.pageInfo.startCursor!;
      }
      expect(seen).toEqual(ids);
    }
  });

  it('mixes cursors of both directions and places an empty page at the end', async () => {
    const ids = (await v1Frameworks(3)).map((framework) => String(framework.id));
    const all = (await stack.query(FrameworkIdsDocument, { organizationId: '3' })).data!.securityFrameworks!;
    const cursor = (index: number) => all.edges[index]!.cursor;

    const between = (await stack.query(FrameworkIdsDocument, { organizationId: '3', after: cursor(1), before: cursor(5) })).data!
      .securityFrameworks!;
    expect(between.nodes.map((node) => node.id)).toEqual(ids.slice(2, 5));
    expect(between.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true, startCursor: cursor(2), endCursor: cursor(4) });

    const lastTwoBefore = (await stack.query(FrameworkIdsDocument, { organizationId: '3', last: 2, before: cursor(4) })).data!
      .securityFrameworks!;
    expect(lastTwoBefore.nodes.map((node) => node.id)).toEqual(ids.slice(2, 4));
    expect(lastTwoBefore.pageInfo).toEqual({ hasPreviousPage: true, hasNextPage: true, startCursor: cursor(2), endCursor: cursor(3) });

    const pastEnd = (await stack.query(FrameworkIdsDocument, { organizationId: '3', first: 2, after: cursor(ids.length - 1) })).data!
      .securityFrameworks!;
    expect(pastEnd).toEqual({
      edges: [],
      nodes: [],
      totalCount: ids.length,
      pageInfo: { hasPreviousPage: true, hasNextPage: false, startCursor: null, endCursor: null },
    });
  });

  it('refuses first and last outside 1–100 with BAD_USER_INPUT', async () => {
    for (const args of [{ first: 0 }, { first: 101 }, { first: -1 }, { last: 0 }, { last: 101 }, { last: -5 }]) {
      const [argument, value] = Object.entries(args)[0] as ['first' | 'last', number];
      stack.proxy.reset();
      const response = await stack.query(FrameworkIdsDocument, { organizationId: '3', ...args });
      expectPageSizeRefused(response, argument, value, 'Query.securityFrameworks');
      expect(stack.proxy.calls, JSON.stringify(args)).toEqual([]);
    }
  });

  it('refuses a cursor of another organization and a garbage cursor with BAD_USER_INPUT', async () => {
    const otherCursor = (await stack.query(FrameworkIdsDocument, { organizationId: '1', first: 1 })).data!.securityFrameworks!.pageInfo
      .endCursor!;
    const ownCursor = (await stack.query(FrameworkIdsDocument, { organizationId: '3', first: 1 })).data!.securityFrameworks!.pageInfo
      .endCursor!;
    expect(otherCursor).not.toBe(ownCursor);
    const garbage = ['not-a-cursor', 'Zm9v', Buffer.from('[1,0,"x"]').toString('base64url'), `${ownCursor}x`, ''];
    for (const cursor of [otherCursor, ...garbage]) {
      for (const args of [{ first: 2, after: cursor }, { last: 2, before: cursor }]) {
        const response = await stack.query(FrameworkIdsDocument, { organizationId: '3', ...args });
        const error = onlyError(response);
        expect(error.extensions?.code, JSON.stringify(args)).toBe('BAD_USER_INPUT');
        expect(error.path).toEqual(['securityFrameworks']);
      }
    }
  });

  it("answers an organization key asking for another organization's list with FORBIDDEN (the upstream's 403)", async () => {
    const response = await stack.query(FrameworkIdsDocument, { organizationId: '2' }, { key: TEST_KEYS.org1 });
    const error = onlyError(response);
    expect(error.extensions?.code).toBe('FORBIDDEN');
    expect(error.extensions?.upstream?.status).toBe(403);
    expect(error.extensions?.upstream?.messages?.[0]?.code).toBe('forbidden');
    expect(error.path).toEqual(['securityFrameworks']);
    // Its own organization is fine.
    const own = await stack.query(FrameworkIdsDocument, { organizationId: '1' }, { key: TEST_KEYS.org1 });
    expect(own.errors).toBeUndefined();
    expect(own.data!.securityFrameworks!.totalCount).toBe((await v1Frameworks(1)).length);
  });

  it('refuses an organizationId that is not a positive integer with BAD_USER_INPUT, without an upstream call', async () => {
    for (const organizationId of ['abc', '0', '-1', '1.5', ' 1']) {
      stack.proxy.reset();
      const response = await stack.query(FrameworkIdsDocument, { organizationId });
      const error = onlyError(response);
      expect(error.extensions?.code, organizationId).toBe('BAD_USER_INPUT');
      expect(error.path).toEqual(['securityFrameworks']);
      expect(stack.proxy.lines()).toEqual([]);
    }
  });
});

describe('securityFramework', () => {
  it('finds a framework with every field as v1 holds it', async () => {
    for (const organizationId of [1, 2, 3]) {
      for (const framework of await v1Frameworks(organizationId)) {
        const response = await stack.query(FrameworkDocument, { organizationId: String(organizationId), id: String(framework.id) });
        expect(response.errors).toBeUndefined();
        expect(response.data!.securityFramework).toEqual(expectedFramework(framework));
      }
    }
  });

  it('is null without an error for an absent id, an id of another organization or an absent organization', async () => {
    const otherOrganizations = (await v1Frameworks(2))[0]!.id;
    for (const [organizationId, id] of [
      ['1', '99999'],
      ['1', String(otherOrganizations)],
      ['999', '1'],
    ] as const) {
      const response = await stack.query(FrameworkDocument, { organizationId, id });
      expect(response.errors, `${organizationId}/${id}`).toBeUndefined();
      expect(response.data).toEqual({ securityFramework: null });
    }
  });

  it('refuses an id that is not a positive integer with BAD_USER_INPUT naming `id`, without an upstream call', async () => {
    for (const id of ['x', 'not-an-id', '0', '1.5']) {
      stack.proxy.reset();
      const response = await stack.query(FrameworkDocument, { organizationId: '1', id });
      expect(response.data, id).toEqual({ securityFramework: null });
      expect(response.errors?.map((error) => [error.extensions?.code, error.extensions?.field]), id).toEqual([['BAD_USER_INPUT', 'id']]);
      expect(stack.proxy.calls, id).toEqual([]);
    }
  });

  it('is null for a soft-deleted framework', async () => {
    const created = await v1Request(stack.v1, 'POST', '/api/v1/V-Ciso/security-frameworks?organization=1', {
      body: { title: 'Soon deleted', security_frameworks: [] },
    });
    const id = created.json.security_framework as number;
    expect((await stack.query(FrameworkDocument, { organizationId: '1', id: String(id) })).data!.securityFramework?.id).toBe(String(id));
    expect((await v1Request(stack.v1, 'DELETE', `/api/v1/organizations/1/security-frameworks/${id}`)).status).toBe(200);
    const response = await stack.query(FrameworkDocument, { organizationId: '1', id: String(id) });
    expect(response.errors).toBeUndefined();
    expect(response.data).toEqual({ securityFramework: null });
  });

  it('costs one upstream list call per organization, whatever the lookups and lists of one operation', async () => {
    const held = await v1Frameworks(1);
    stack.proxy.reset();
    const response = await stack.query(FrameworkLookupsWithListDocument, {
      organizationId: '1',
      a: String(held[0]!.id),
      b: String(held.at(-1)!.id),
      missing: '99999',
    });
    expect(response.errors).toBeUndefined();
    expect(response.data).toEqual({
      a: { id: String(held[0]!.id), title: held[0]!.title },
      b: { id: String(held.at(-1)!.id), title: held.at(-1)!.title },
      again: { id: String(held[0]!.id) },
      missing: null,
      securityFrameworks: { totalCount: held.length, nodes: held.map((framework) => ({ id: String(framework.id) })) },
    });
    expect(stack.proxy.lines()).toEqual(['GET /api/v1/organizations/1/security-frameworks']);

    const [one, two] = [await v1Frameworks(1), await v1Frameworks(2)];
    stack.proxy.reset();
    const both = await stack.query(FrameworkLookupsTwoOrganizationsDocument, {
      one: '1',
      two: '2',
      a: String(one[0]!.id),
      b: String(two[0]!.id),
    });
    expect(both.errors).toBeUndefined();
    expect(both.data).toEqual({
      a: { id: String(one[0]!.id) },
      b: { id: String(two[0]!.id) },
      listOne: { totalCount: one.length },
      listTwo: { totalCount: two.length },
    });
    expect(stack.proxy.lines().sort()).toEqual([
      'GET /api/v1/organizations/1/security-frameworks',
      'GET /api/v1/organizations/2/security-frameworks',
    ]);
  });
});

describe('createSecurityFramework', () => {
  const input: SecurityFrameworkInput = {
    title: 'Supplier security baseline',
    controls: [
      {
        controlId: 'SUP-1',
        type: 'control',
        title: 'Supplier inventory',
        weight: 1.5,
        details: { owner: 'Procurement', tags: ['vendors', 'contracts'], nested: { level: 2, active: true } },
        frequency: '0 9 1 */3 *',
        description: 'Keep an inventory of suppliers that handle information.',
        evidenceType: 'document',
      },
      { controlId: 'SUP-2', type: 'control', title: 'Supplier reviews', weight: 0, frequency: '*/30 8-18 * * 1-5', evidenceType: 'attestation' },
    ],
  };
  const readBack = (id: string) => ({
    id,
    title: input.title,
    controls: [
      { id: oracle.controlNodeId(Number(id), 'SUP-1'), ...input.controls[0], evidences: [] },
      { id: oracle.controlNodeId(Number(id), 'SUP-2'), ...input.controls[1], details: {}, description: '', evidences: [] },
    ],
  });

  it('with organizationId creates the framework there and reads it back as it was sent', async () => {
    stack.proxy.reset();
    const response = await stack.query(CreateFrameworkDocument, { input, organizationId: '1' });
    expect(response.errors).toBeUndefined();
    const { id, securityFramework } = response.data!.createSecurityFramework!;
    expect(id).toMatch(/^[1-9]\d*$/);
    expect(securityFramework).toEqual(readBack(id));
    expect(stack.proxy.lines()).toEqual([
      'POST /api/v1/V-Ciso/security-frameworks?organization=1',
      'GET /api/v1/organizations/1/security-frameworks',
    ]);
    const held = (await v1Frameworks(1)).find((framework) => String(framework.id) === id);
    expect(held && expectedFramework(held)).toEqual(readBack(id));
  });

  it('without organizationId and with an organization key creates it in the key’s organization and reads nothing back', async () => {
    stack.proxy.reset();
    const response = await stack.query(CreateFrameworkDocument, { input }, { key: TEST_KEYS.org2 });
    expect(response.errors).toBeUndefined();
    const { id, securityFramework } = response.data!.createSecurityFramework!;
    expect(securityFramework).toBeNull();
    expect(stack.proxy.lines()).toEqual(['POST /api/v1/V-Ciso/security-frameworks']);
    const held = (await v1Frameworks(2)).find((framework) => String(framework.id) === id);
    expect(held && expectedFramework(held)).toEqual(readBack(id));
    expect((await v1Frameworks(1)).some((framework) => String(framework.id) === id)).toBe(false);
  });

  it('gives each control an id of its own framework, the same on every read (the gateway keeps them encoded)', async () => {
    // The same control ids in two frameworks, with separators and characters beyond ASCII.
    const controlIds = ['SAME', 'a:b', '1:SAME', 'Kontrolle ü/é ✓'];
    const shared: SecurityFrameworkInput = {
      title: 'Two frameworks, one set of control ids',
      controls: controlIds.map((controlId) => ({ ...validControl, controlId })),
    };
    const created = [];
    for (let i = 0; i < 2; i++) {
      const response = await stack.query(CreateFrameworkDocument, { input: shared, organizationId: '1' });
      expect(response.errors).toBeUndefined();
      created.push(response.data!.createSecurityFramework!);
    }
    const expectedIds = (frameworkId: string) => controlIds.map((controlId) => oracle.controlNodeId(Number(frameworkId), controlId));
    for (const { id, securityFramework } of created) expect(securityFramework!.controls.map((control) => control.id)).toEqual(expectedIds(id));
    // Read again, each twice: what the gateway kept is what it encodes.
    for (let read = 0; read < 2; read++) {
      for (const { id } of created) {
        const response = await stack.query(FrameworkDocument, { organizationId: '1', id });
        expect(response.errors).toBeUndefined();
        expect(response.data!.securityFramework!.controls.map((control) => control.id)).toEqual(expectedIds(id));
      }
    }
    expect(new Set(created.flatMap(({ id }) => expectedIds(id))).size).toBe(2 * controlIds.length);
  });

  it('with an organization key naming another organization is FORBIDDEN', async () => {
    const before = (await v1Frameworks(2)).length;
    const response = await stack.query(CreateFrameworkDocument, { input, organizationId: '2' }, { key: TEST_KEYS.org1 });
    const error = onlyError(response);
    expect(error.extensions?.code).toBe('FORBIDDEN');
    expect(error.extensions?.upstream?.status).toBe(403);
    expect((await v1Frameworks(2)).length).toBe(before);
  });

  it('with an admin key and no organizationId is BAD_USER_INPUT from the upstream’s 400', async () => {
    const counts = [await v1Frameworks(1), await v1Frameworks(2), await v1Frameworks(3)].map((list) => list.length);
    const response = await stack.query(CreateFrameworkDocument, { input });
    const error = onlyError(response);
    expect(error.path?.[0]).toBe('createSecurityFramework');
    expect(error.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'organizationId',
      upstream: {
        status: 400,
        error: 1,
        messages: [{ code: 'validation_failed', message: expect.any(String), field: 'organization' }],
      },
    });
    expect([await v1Frameworks(1), await v1Frameworks(2), await v1Frameworks(3)].map((list) => list.length)).toEqual(counts);
  });

  it('passes on the upstream’s validation errors as BAD_USER_INPUT with its messages and nothing else', async () => {
    const response = await stack.query(CreateFrameworkDocument, {
      input: { title: 'Bad frequency', controls: [{ ...validControl, frequency: '0 9 * *' }] },
      organizationId: '1',
    });
    const error = onlyError(response);
    expect(error.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'input.controls[0].frequency',
      upstream: {
        status: 400,
        error: 1,
        messages: [{ code: 'validation_failed', message: expect.any(String), field: 'security_frameworks.0.frequency' }],
      },
    });
  });
});

describe('updateSecurityFramework', () => {
  /** A framework of organization 1 with evidence on at least two of its controls. */
  async function frameworkWithEvidence(): Promise<SecurityFramework> {
    const found = (await v1Frameworks(1)).find(
      (framework) => framework.security_frameworks.filter((control) => control.evidences.length > 0).length >= 2,
    );
    expect(found, 'a demo framework of organization 1 with evidence on two controls').toBeDefined();
    return found!;
  }

  it('replaces title and ordered controls; kept controls keep their evidence, a removed control’s evidence returns with it', async () => {
    const original = await frameworkWithEvidence();
    const removed = original.security_frameworks.find((control) => control.evidences.length > 0)!;
    const kept = original.security_frameworks.filter((control) => control !== removed).reverse();
    const added = { ...validControl, controlId: 'NEW-1', title: 'A control added by the edit', details: { note: 'added' } };
    const input: SecurityFrameworkInput = {
      title: `${original.title} (revised)`,
      controls: [added, ...kept.map((control) => ({ ...controlInput(control), weight: control.weight + 1, title: `${control.title}!` }))],
    };

    stack.proxy.reset();
    const response = await stack.query(UpdateFrameworkDocument, { organizationId: '1', id: String(original.id), input });
    expect(response.errors).toBeUndefined();
    expect(stack.proxy.lines()).toEqual([`PUT /api/v1/organizations/1/security-frameworks/${original.id}`]);
    const expected = {
      id: String(original.id),
      title: input.title,
      controls: [
        { id: oracle.controlNodeId(original.id, 'NEW-1'), ...added, evidences: [] },
        ...kept.map((control) => ({
          ...expectedFramework({ ...original, security_frameworks: [control] }).controls[0]!,
          weight: control.weight + 1,
          title: `${control.title}!`,
        })),
      ],
    };
    expect(response.data!.updateSecurityFramework!.securityFramework).toEqual(expected);
    const held = (await v1Frameworks(1)).find((framework) => framework.id === original.id)!;
    expect(expectedFramework(held)).toEqual(expected);
    // Evidence was kept for every control that stayed.
    expect(kept.some((control) => control.evidences.length > 0)).toBe(true);

    // The removed control comes back with its evidence.
    const restored = await stack.query(UpdateFrameworkDocument, {
      organizationId: '1',
      id: String(original.id),
      input: { title: original.title, controls: original.security_frameworks.map(controlInput) },
    });
    expect(restored.errors).toBeUndefined();
    expect(restored.data!.updateSecurityFramework!.securityFramework).toEqual(expectedFramework(original));
    expect((await v1Frameworks(1)).find((framework) => framework.id === original.id)).toEqual(original);
  });

  it('passes on validation errors (bad cron frequency, duplicate control ids) as BAD_USER_INPUT on a null mutation', async () => {
    const target = (await v1Frameworks(1))[0]!;
    // v1's field, then the client's name for it.
    const cases: [SecurityFrameworkInput, string, string][] = [
      [{ title: 'x', controls: [{ ...validControl, frequency: '61 * * * *' }] }, 'security_frameworks.0.frequency', 'input.controls[0].frequency'],
      [{ title: 'x', controls: [validControl, { ...validControl, title: 'Twin' }] }, 'security_frameworks.1.id', 'input.controls[1].controlId'],
      [{ title: 'x', controls: [{ ...validControl, weight: -1 }] }, 'security_frameworks.0.weight', 'input.controls[0].weight'],
      [{ title: '', controls: [validControl] }, 'title', 'input.title'],
    ];
    for (const [input, field, graphqlField] of cases) {
      const response = await stack.query(UpdateFrameworkDocument, { organizationId: '1', id: String(target.id), input });
      const error = onlyError(response);
      expect(error.path).toEqual(['updateSecurityFramework']);
      expect(response.data).toEqual({ updateSecurityFramework: null });
      expect(error.extensions).toEqual({
        code: 'BAD_USER_INPUT',
        field: graphqlField,
        upstream: { status: 400, error: 1, messages: [{ code: 'validation_failed', message: expect.any(String), field }] },
      });
      // Nothing of the upstream beyond its words: no address, no headers.
      for (const leak of [stack.v1.url, stack.proxy.url, new URL(stack.v1.url).host, new URL(stack.proxy.url).host, 'x-service-token']) {
        expect(response.text.toLowerCase()).not.toContain(leak.toLowerCase());
      }
    }
    expect((await v1Frameworks(1))[0]).toEqual(target);
  });

  it('is NOT_FOUND for an unknown framework and BAD_USER_INPUT without an upstream call for a bad id', async () => {
    const input = { title: 'x', controls: [validControl] };
    const missing = await stack.query(UpdateFrameworkDocument, { organizationId: '1', id: '99999', input });
    expect(onlyError(missing)).toMatchObject({ path: ['updateSecurityFramework'], extensions: { code: 'NOT_FOUND' } });
    expect(missing.data).toEqual({ updateSecurityFramework: null });

    stack.proxy.reset();
    const bad = await stack.query(UpdateFrameworkDocument, { organizationId: 'abc', id: '1', input });
    expect(onlyError(bad).extensions?.code).toBe('BAD_USER_INPUT');
    expect(stack.proxy.lines()).toEqual([]);
  });

  it('keeps the data of a second edit when the first edit of the same document fails', async () => {
    const target = (await v1Frameworks(3))[0]!;
    const input = { title: target.title, controls: target.security_frameworks.map(controlInput) };
    const response = await stack.query(UpdateTwoFrameworksDocument, {
      organizationId: '3',
      failingId: String(target.id),
      failingInput: { title: 'x', controls: [{ ...validControl, frequency: 'every day' }] },
      id: String(target.id),
      input,
    });
    const error = onlyError(response);
    expect(error.path).toEqual(['failing']);
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    expect(response.data).toEqual({ failing: null, succeeding: { securityFramework: expectedFramework(target) } });
  });

  it('a failed create is null with its error, and the later edit of the same document still runs', async () => {
    // Mutation root fields are nullable (graphql.md, "Partial data is the rule"): a failed create
    // nulls itself alone, and serial execution goes on to the next mutation, whose result comes
    // back beside the error.
    const target = (await v1Frameworks(3))[1]!;
    const title = `${target.title} (edited after a failed create)`;
    stack.proxy.reset();
    const response = await stack.query(CreateFailingThenUpdateDocument, {
      // An admin key without organizationId: the upstream refuses the create.
      createInput: { title: 'Never created', controls: [] },
      organizationId: '3',
      id: String(target.id),
      input: { title, controls: target.security_frameworks.map(controlInput) },
    });
    const error = onlyError(response);
    expect(error.path).toEqual(['failing']);
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    expect(response.data).toEqual({ failing: null, succeeding: { securityFramework: { id: String(target.id), title } } });
    // In document order: the create, then the edit.
    expect(stack.proxy.lines()).toEqual(['POST /api/v1/V-Ciso/security-frameworks', `PUT /api/v1/organizations/3/security-frameworks/${target.id}`]);
    expect((await v1Frameworks(3))[1]!.title).toBe(title);
    const restored = await stack.query(UpdateFrameworkDocument, {
      organizationId: '3',
      id: String(target.id),
      input: { title: target.title, controls: target.security_frameworks.map(controlInput) },
    });
    expect(restored.errors).toBeUndefined();
  });
});

describe('deleteSecurityFramework', () => {
  it('returns the framework as it was, then it is gone; a second delete is NOT_FOUND on a null mutation', async () => {
    const held = await v1Frameworks(2);
    const victim = held.find((framework) => framework.security_frameworks.some((control) => control.evidences.length > 0))!;
    expect(victim).toBeDefined();

    const response = await stack.query(DeleteFrameworkDocument, { organizationId: '2', id: String(victim.id) });
    expect(response.errors).toBeUndefined();
    expect(response.data).toEqual({ deleteSecurityFramework: { securityFramework: expectedFramework(victim) } });

    expect((await v1Frameworks(2)).map((framework) => framework.id)).toEqual(
      held.filter((framework) => framework !== victim).map((framework) => framework.id),
    );
    const list = await stack.query(FrameworkIdsDocument, { organizationId: '2' });
    expect(list.data!.securityFrameworks!.nodes.map((node) => node.id)).not.toContain(String(victim.id));
    expect(list.data!.securityFrameworks!.totalCount).toBe(held.length - 1);
    expect((await stack.query(FrameworkDocument, { organizationId: '2', id: String(victim.id) })).data).toEqual({ securityFramework: null });

    const again = await stack.query(DeleteFrameworkDocument, { organizationId: '2', id: String(victim.id) });
    const error = onlyError(again);
    expect(error.path).toEqual(['deleteSecurityFramework']);
    expect(error.extensions?.code).toBe('NOT_FOUND');
    expect(error.extensions?.upstream?.status).toBe(404);
    expect(again.data).toEqual({ deleteSecurityFramework: null });

    const edit = await stack.query(UpdateFrameworkDocument, {
      organizationId: '2',
      id: String(victim.id),
      input: { title: 'x', controls: [] },
    });
    expect(onlyError(edit)).toMatchObject({ path: ['updateSecurityFramework'], extensions: { code: 'NOT_FOUND' } });
  });

  it("is FORBIDDEN for an organization key on another organization's framework, and nothing is deleted", async () => {
    const held = await v1Frameworks(3);
    const response = await stack.query(DeleteFrameworkDocument, { organizationId: '3', id: String(held[0]!.id) }, { key: TEST_KEYS.org1 });
    expect(onlyError(response)).toMatchObject({
      path: ['deleteSecurityFramework'],
      extensions: { code: 'FORBIDDEN', upstream: { status: 403 } },
    });
    expect(await v1Frameworks(3)).toEqual(held);
  });
});

describe('keys', () => {
  it('without a key is HTTP 401 UNAUTHENTICATED with no upstream call', async () => {
    stack.proxy.reset();
    const list = await stack.query(FrameworkIdsDocument, { organizationId: '1' }, { key: null });
    expect(list.status).toBe(401);
    expect(list.headers.get('www-authenticate')).toBe('Bearer');
    expect(onlyError(list)).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    expect(list.data).toBeUndefined();
    const lookup = await stack.query(FrameworkDocument, { organizationId: '1', id: '1' }, { key: null });
    expect(onlyError(lookup).extensions?.code).toBe('UNAUTHENTICATED');
    const create = await stack.query(CreateFrameworkDocument, { input: { title: 'x', controls: [] }, organizationId: '1' }, { key: null });
    expect(onlyError(create).extensions?.code).toBe('UNAUTHENTICATED');
    const remove = await stack.query(DeleteFrameworkDocument, { organizationId: '1', id: '1' }, { key: null });
    expect(onlyError(remove).extensions?.code).toBe('UNAUTHENTICATED');
    expect(stack.proxy.lines()).toEqual([]);
  });

  it('an unknown key is UNAUTHENTICATED (the upstream’s 401), and no key shows in a response or a log line', async () => {
    const unknown = 'unknown-key-7f3a9c51e2';
    const response = await stack.query(FrameworkIdsDocument, { organizationId: '1' }, { key: unknown });
    expect(onlyError(response)).toMatchObject({ extensions: { code: 'UNAUTHENTICATED', upstream: { status: 401 } } });
    expect(response.text).not.toContain(unknown);
    expect(stack.keys().length).toBeGreaterThan(Object.values(TEST_KEYS).length);
    // The lines as production writes them (its logger, with its redaction), one per request at least.
    expect(stack.logs.length).toBeGreaterThan(0);
    for (const key of [unknown, ...stack.keys()]) {
      expect(stack.logs.filter((line) => line.includes(key))).toEqual([]);
    }
  });
});
