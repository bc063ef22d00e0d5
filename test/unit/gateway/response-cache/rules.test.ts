// The response cache's rules: what the compiler demands of a domain's table (the @ts-expect-error
// lines are checked by `npm run typecheck`: each must be an error, or the check fails), and that
// the domains' rules keep what they declare: every named invalidation reaches the read it names.
import { describe, expect, it } from 'vitest';
import { ROUTE_CACHE_RULES } from '../../../../src/gateway/domains/routes.ts';
import { cacheRules, useOf, type DeclaredRule } from '../../../../src/gateway/response-cache/rules.ts';
import { int } from '../../../../src/gateway/upstream/check.ts';
import { fieldOf, listOf } from '../../../../src/gateway/upstream/envelope.ts';
import type { CallInput } from '../../../../src/gateway/upstream/call-types.ts';
import { route } from '../../../../src/gateway/upstream/routes.ts';

const table = {
  listThings: route('GET', '/api/v1/things', listOf(int)),
  editThing: route('PUT', '/api/v1/things/{id}', fieldOf('thing', int)),
  touchThing: route('POST', '/api/v1/things/{id}/touch', fieldOf('thing', int)),
};
const edits = { invalidates: ({ params }: CallInput) => [`things:${params?.id}`] };
const touchesNothingCached = { noCachedRead: 'no cached read holds a touch' };

describe('a domain’s cache rules, as the compiler checks them', () => {
  it('accepts a read that names what invalidates it, and one that nothing the gateway sends changes', () => {
    const rules = cacheRules(table, {
      listThings: { read: () => ['things'], invalidatedBy: ['editThing'] },
      editThing: edits,
      touchThing: touchesNothingCached,
    });
    expect(rules.map(({ name }) => name)).toEqual(['listThings', 'editThing', 'touchThing']);
    expect(rules[0]!.route).toBe(table.listThings);
    cacheRules(table, {
      listThings: { read: () => ['things'], changedOnlyUpstream: 'things change behind the gateway' },
      editThing: edits,
      touchThing: touchesNothingCached,
    });
  });

  it('refuses a table that forgets what a route does to the cache', () => {
    cacheRules(table, {
      // @ts-expect-error a read names what invalidates it, or why nothing does
      listThings: { read: () => ['things'] },
      editThing: edits,
      touchThing: touchesNothingCached,
    });
    cacheRules(table, {
      listThings: { read: () => ['things'], invalidatedBy: ['editThing'] },
      // @ts-expect-error a mutation names its tags, or says no cached read holds its data
      editThing: {},
      touchThing: touchesNothingCached,
    });
    // @ts-expect-error every route of the table has a rule
    cacheRules(table, {
      listThings: { read: () => ['things'], invalidatedBy: ['editThing'] },
      editThing: edits,
    });
    cacheRules(table, {
      // @ts-expect-error an empty list names nothing
      listThings: { read: () => ['things'], invalidatedBy: [] },
      editThing: edits,
      touchThing: touchesNothingCached,
    });
    cacheRules(table, {
      // @ts-expect-error not both: invalidated by a mutation, and changed only upstream
      listThings: { read: () => ['things'], invalidatedBy: ['editThing'], changedOnlyUpstream: 'both' },
      editThing: edits,
      touchThing: touchesNothingCached,
    });
  });

  it('refuses a read that names a mutation that invalidates nothing, or a read', () => {
    cacheRules(table, {
      // @ts-expect-error touchThing invalidates nothing
      listThings: { read: () => ['things'], invalidatedBy: ['touchThing'] },
      editThing: edits,
      touchThing: touchesNothingCached,
    });
    cacheRules(table, {
      // @ts-expect-error a read invalidates nothing
      listThings: { read: () => ['things'], invalidatedBy: ['listThings'] },
      editThing: edits,
      touchThing: touchesNothingCached,
    });
  });

  it('refuses a read rule on a mutation, and a mutation rule on a read', () => {
    cacheRules(table, {
      // @ts-expect-error a GET is a read
      listThings: { invalidates: () => ['things'] },
      editThing: edits,
      touchThing: touchesNothingCached,
    });
    cacheRules(table, {
      listThings: { read: () => ['things'], changedOnlyUpstream: 'things change behind the gateway' },
      // @ts-expect-error a PUT is no read
      editThing: { read: () => ['things'], changedOnlyUpstream: 'no' },
      touchThing: touchesNothingCached,
    });
  });
});

describe('what a call is to the cache', () => {
  it('a read: its tags; a mutation: the tags it invalidates; a mutation no cached read holds: nothing', () => {
    const input = { params: { id: '7' } };
    expect(useOf({ read: () => ['things'], changedOnlyUpstream: 'x' }, input)).toEqual({ read: ['things'] });
    expect(useOf(edits, input)).toEqual({ invalidates: ['things:7'] });
    expect(useOf(touchesNothingCached, input)).toBeUndefined();
  });
});

/** A call of the route with every path parameter and every query parameter the rules read set to `value`. */
function inputOf(declared: DeclaredRule, value: string): CallInput {
  const params = Object.fromEntries([...declared.route.template.matchAll(/\{(\w+)\}/g)].map((match) => [match[1]!, value]));
  return { params, query: new URLSearchParams({ organization: value }) };
}

describe('the domains’ rules', () => {
  const byName = new Map(ROUTE_CACHE_RULES.map((declared) => [declared.name, declared]));

  it('give every v1 route one rule, GETs a read and the others a mutation', () => {
    expect(byName.size).toBe(ROUTE_CACHE_RULES.length);
    expect([...byName.keys()].sort()).toEqual([
      'createSecurityFramework',
      'deleteSecurityFramework',
      'deleteWebProtectionRecord',
      'getWebProtectionRecord',
      'listProtectionDevices',
      'listSecurityFrameworks',
      'listTraffic',
      'listWebProtectionRecords',
      'updateSecurityFramework',
      'updateWebProtectionRecord',
    ]);
    for (const { route: declared, rule } of ROUTE_CACHE_RULES) expect('read' in rule).toBe(declared.method === 'GET');
  });

  it('every mutation a read names invalidates one of the read’s tags, for the same data', () => {
    const reads = ROUTE_CACHE_RULES.filter(({ rule }) => 'invalidatedBy' in rule && rule.invalidatedBy !== undefined);
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      const rule = read.rule as { read: (input: CallInput) => readonly string[]; invalidatedBy: readonly string[] };
      const tags = rule.read(inputOf(read, '3'));
      for (const name of rule.invalidatedBy) {
        const mutation = byName.get(name)!;
        const invalidated = useOf(mutation.rule, inputOf(mutation, '3'));
        expect(invalidated && 'invalidates' in invalidated ? invalidated.invalidates.filter((tag) => tags.includes(tag)) : [], `${name} invalidates ${read.name}`).not.toEqual([]);
        // Another organization's edit leaves the read alone, unless it reaches every organization.
        const elsewhere = useOf(mutation.rule, inputOf(mutation, '4'));
        if (elsewhere && 'invalidates' in elsewhere) expect(elsewhere.invalidates.filter((tag) => tags.includes(tag) && tag.endsWith(':3'))).toEqual([]);
      }
    }
  });

  it('a framework create without an organization invalidates every organization’s list', () => {
    const create = byName.get('createSecurityFramework')!;
    const list = byName.get('listSecurityFrameworks')!;
    const everywhere = useOf(create.rule, { query: new URLSearchParams() });
    const tags = (list.rule as { read: (input: CallInput) => readonly string[] }).read(inputOf(list, '9'));
    expect(everywhere && 'invalidates' in everywhere && everywhere.invalidates.some((tag) => tags.includes(tag))).toBe(true);
  });

  it('a web protection edit or delete invalidates every list page and its own record, not another record', () => {
    const list = byName.get('listWebProtectionRecords')!;
    const read = byName.get('getWebProtectionRecord')!;
    const tagsOf = (declared: typeof list, value: string) => (declared.rule as { read: (input: CallInput) => readonly string[] }).read(inputOf(declared, value));
    for (const name of ['updateWebProtectionRecord', 'deleteWebProtectionRecord']) {
      const use = useOf(byName.get(name)!.rule, inputOf(byName.get(name)!, '3'));
      const invalidated = use && 'invalidates' in use ? use.invalidates : [];
      expect(invalidated.some((tag) => tagsOf(list, '1').includes(tag))).toBe(true);
      expect(invalidated.some((tag) => tagsOf(read, '3').includes(tag))).toBe(true);
      expect(invalidated.some((tag) => tagsOf(read, '4').includes(tag))).toBe(false);
    }
  });
});
