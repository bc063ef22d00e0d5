// The response cache as one request's upstream client uses it: answers kept per key, the rules of
// the routes looked up by route, invalidations for every key, a read in flight when a mutation
// lands never kept, and stale answers only within the stale window, marked for `extensions.stale`.
import { describe, expect, it } from 'vitest';
import { CacheOfCaller } from '../../../../src/gateway/response-cache/caller.ts';
import { cacheRules, type CacheRule } from '../../../../src/gateway/response-cache/rules.ts';
import { StaleReads } from '../../../../src/gateway/response-cache/stale.ts';
import { ResponseCache } from '../../../../src/gateway/response-cache/store.ts';
import { int } from '../../../../src/gateway/upstream/check.ts';
import { fieldOf, listOf } from '../../../../src/gateway/upstream/envelope.ts';
import { route, type Route } from '../../../../src/gateway/upstream/routes.ts';

const routes = {
  list: route('GET', '/api/v1/things', listOf(int)),
  edit: route('PUT', '/api/v1/things/{id}', fieldOf('thing', int)),
  touch: route('POST', '/api/v1/things/{id}/touch', fieldOf('thing', int)),
};
const rules = new Map<Route<unknown>, CacheRule>(
  cacheRules(routes, {
    list: { read: () => ['things'], invalidatedBy: ['edit'] },
    edit: { invalidates: ({ params }) => [`thing:${params?.id}`, 'things'] },
    touch: { noCachedRead: 'no read holds a touch' },
  }).map(({ route: declared, rule }) => [declared, rule]),
);
const settings = { ttlMs: 60_000, staleIfErrorMs: 60_000, maxBytes: 1 << 20 };

function callers(store = new ResponseCache(settings)) {
  const stale = new StaleReads();
  return { store, stale, alice: new CacheOfCaller(store, rules, 'alice', stale), bob: new CacheOfCaller(store, rules, 'bob', new StaleReads()) };
}

async function read(cache: CacheOfCaller, path: string, text: string): Promise<string> {
  const found = await cache.lookup(path, ['things']);
  if ('fresh' in found) return found.fresh.text;
  await cache.keep(path, text, ['things'], found.stamp);
  return text;
}

describe('CacheOfCaller', () => {
  it('asks the route’s rule what a call is: a read, a mutation’s invalidation, or nothing', () => {
    const { alice } = callers();
    expect(alice.use(routes.list, {})).toEqual({ read: ['things'] });
    expect(alice.use(routes.edit, { params: { id: '4' } })).toEqual({ invalidates: ['thing:4', 'things'] });
    expect(alice.use(routes.touch, { params: { id: '4' } })).toBeUndefined();
    // A route without a rule is none of the cache's business.
    expect(alice.use(route('GET', '/api/v1/elsewhere', listOf(int)), {})).toBeUndefined();
  });

  it('keeps answers per key, and a mutation of either key invalidates them for both', async () => {
    const { alice, bob } = callers();
    expect(await read(alice, '/things', 'a1')).toBe('a1');
    expect(await read(alice, '/things', 'a2')).toBe('a1');
    expect(await read(bob, '/things', 'b1')).toBe('b1');
    await bob.invalidate(['things']);
    expect(await read(alice, '/things', 'a3')).toBe('a3');
    expect(await read(bob, '/things', 'b2')).toBe('b2');
  });

  it('never keeps a read whose call was in flight when a mutation landed', async () => {
    const { alice } = callers();
    const found = await alice.lookup('/things', ['things']);
    expect('stamp' in found).toBe(true);
    await alice.invalidate(['things']);
    if ('stamp' in found) await alice.keep('/things', 'before the edit', ['things'], found.stamp);
    expect(await alice.stale('/things', ['things'])).toBeUndefined();
    expect(await read(alice, '/things', 'after')).toBe('after');
  });

  it('hands out a stale answer within the window and marks what was built from it', async () => {
    const { alice, stale } = callers();
    await read(alice, '/things', '{"x":1}');
    expect((await alice.stale('/things', ['things']))?.text).toBe('{"x":1}');
    const value = { data: [{ id: 1 }] };
    alice.servedStale(value, 3_000);
    stale.note({ path: { prev: undefined, key: 'things', typename: undefined } }, value.data[0]);
    expect(stale.fields).toEqual([{ path: ['things'], age: 3 }]);
  });

  it('without a stale window serves nothing stale, not even an answer kept this millisecond', async () => {
    const store = new ResponseCache({ ...settings, staleIfErrorMs: 0 });
    const alice = new CacheOfCaller(store, rules, 'alice', undefined);
    await read(alice, '/things', 'kept');
    expect(await alice.stale('/things', ['things'])).toBeUndefined();
    expect(() => alice.servedStale({}, 0)).not.toThrow();
  });
});
