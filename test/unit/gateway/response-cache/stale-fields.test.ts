// Which fields reached a stale answer, found with no help from the resolvers: a value the upstream
// client handed out as stale is marked, and a field whose resolver takes it from the request's
// loaders is noted with its path. The wrapper is put around the schema's resolvers only when the
// gateway serves stale answers, and around those that take the context only.
import DataLoader from 'dataloader';
import { defaultFieldResolver, execute, GraphQLObjectType, parse, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../../../src/gateway/domains/index.ts';
import { noteStaleFields, type StaleAwareContext } from '../../../../src/gateway/response-cache/stale-fields.ts';
import { StaleReads } from '../../../../src/gateway/response-cache/stale.ts';

/** A resolve info at `path` (the wrapper reads nothing else of it). */
function infoAt(...keys: (string | number)[]): GraphQLResolveInfo {
  let path: GraphQLResolveInfo['path'] | undefined;
  for (const key of keys) path = { prev: path, key, typename: undefined };
  return { path } as GraphQLResolveInfo;
}

function pageLoader(pages: Map<string, { total: number; data: object[] }>) {
  return new DataLoader<string, { total: number; data: object[] }>(async (keys) => keys.map((key) => pages.get(key)!));
}

describe('StaleReads', () => {
  it('marks a result, its list and the list’s records; notes a marked value’s field with its age in seconds', () => {
    const stale = new StaleReads();
    const page = { total: 2, data: [{ id: 1 }, { id: 2 }] };
    stale.mark(page, 61_500);
    stale.note(infoAt('protectionDevices'), page);
    stale.note(infoAt('protectionDevice'), page.data[1]);
    stale.note(infoAt('frameworks'), page.data);
    stale.note(infoAt('other'), { id: 3 });
    stale.note(infoAt('nothing'), null);
    expect(stale.fields).toEqual([
      { path: ['protectionDevices'], age: 61 },
      { path: ['protectionDevice'], age: 61 },
      { path: ['frameworks'], age: 61 },
    ]);
  });

  it('lists at most 100 fields', () => {
    const stale = new StaleReads();
    const value = {};
    stale.mark(value, 0);
    for (let i = 0; i < 150; i++) stale.note(infoAt('list', i), value);
    expect(stale.fields).toHaveLength(100);
  });
});

describe('noteStaleFields', () => {
  it('leaves a resolver that does not take the context as it is', () => {
    const byId = (device: { id: number }) => String(device.id);
    expect(noteStaleFields(byId)).toBe(byId);
  });

  it('notes a field given a marked value by a loader, with the field’s path; not one given a fresh value', async () => {
    const stale = new StaleReads();
    const old = { total: 1, data: [{ id: 1 }] };
    const fresh = { total: 1, data: [{ id: 2 }] };
    stale.mark(old, 5_000);
    const context = { stale, loaders: { pages: pageLoader(new Map([['old', old], ['fresh', fresh]])) }, requestId: 'r' };
    const resolve = noteStaleFields(async (_source: unknown, args: { key: string }, { loaders }: typeof context) => (await loaders.pages.load(args.key)).data.length);
    expect(await resolve(undefined, { key: 'old' }, context, infoAt('devices'))).toBe(1);
    expect(await resolve(undefined, { key: 'fresh' }, context, infoAt('again'))).toBe(1);
    // The same marked value, deduplicated by the loader, reaches a second field: noted there too.
    await resolve(undefined, { key: 'old' }, context, infoAt('devices', 'nodes', 0, 'traffic'));
    expect(stale.fields).toEqual([
      { path: ['devices'], age: 5 },
      { path: ['devices', 'nodes', 0, 'traffic'], age: 5 },
    ]);
  });

  it('hands the resolver the request’s context otherwise as it is: its members, and the loaders’ own state', async () => {
    const stale = new StaleReads();
    const pages = pageLoader(new Map([['a', { total: 0, data: [] }]]));
    const context: StaleAwareContext & { requestId: string; loaders: { pages: typeof pages; plain: number } } = { stale, loaders: { pages, plain: 7 }, requestId: 'r' };
    let seen: typeof context | undefined;
    const resolve = noteStaleFields(async (_s: unknown, _a: unknown, ctx: typeof context) => {
      seen = ctx;
      await ctx.loaders.pages.load('a');
      ctx.loaders.pages.clear('a');
      ctx.loaders.pages.prime('a', { total: 9, data: [] });
      return ctx.loaders.plain;
    });
    expect(await resolve(undefined, {}, context, infoAt('x'))).toBe(7);
    expect(seen?.requestId).toBe('r');
    expect(seen?.stale).toBe(stale);
    // What the view did, it did to the request's loader.
    expect((await pages.load('a')).total).toBe(9);
  });

  it('passes the context through untouched when the request has no stale record (no key)', async () => {
    const context = { loaders: {} };
    let seen: unknown;
    const resolve = noteStaleFields((_s: unknown, _a: unknown, ctx: StaleAwareContext) => {
      seen = ctx;
      return 1;
    });
    resolve(undefined, {}, context, infoAt('x'));
    expect(seen).toBe(context);
  });
});

describe('the schema with stale fields noted', () => {
  const resolverOf = (schema: GraphQLSchema, type: string, field: string) => (schema.getType(type) as GraphQLObjectType).getFields()[field]!.resolve;

  it('is a schema of its own: the plain one keeps its resolvers, per-record fields are not wrapped', () => {
    const plain = buildSchema();
    const noted = buildSchema(noteStaleFields);
    expect(noted).not.toBe(plain);
    expect(buildSchema(noteStaleFields)).toBe(noted);
    expect(buildSchema()).toBe(plain);
    // The schema binds each resolver it is given: a bound function keeps the name of what it binds.
    const nameOf = (schema: GraphQLSchema, type: string, field: string) => resolverOf(schema, type, field)?.name;
    for (const [type, field] of [
      ['Query', 'protectionDevices'],
      ['Query', 'securityFramework'],
      ['ProtectionDevice', 'traffic'],
    ] as const) {
      expect(nameOf(plain, type, field)).toBe(`bound ${field}`);
      expect(nameOf(noted, type, field)).not.toBe(`bound ${field}`);
    }
    // Read by thousands per page, and unable to reach a loader: the resolver itself in both.
    for (const field of ['id', 'privateIp']) expect(nameOf(noted, 'ProtectionDevice', field)).toBe(`bound ${field}`);
    expect(resolverOf(noted, 'ProtectionDevice', 'email') ?? defaultFieldResolver).toBe(defaultFieldResolver);
  });

  it('notes the fields of an operation that a stale answer reached, through graphql-js', async () => {
    const stale = new StaleReads();
    const device = { id: 1, organization: { id: 1, name: 'o', logo: null }, atb_key: null, type: 't', email: 'e', check: null, plugin: null, endpoint: null, privateIP: null, services: [], device_id: 'd' };
    const page = { total: 1, data: [device] };
    stale.mark(page, 2_000);
    const loaders = {
      devicePages: { load: async () => page },
      deviceById: new DataLoader<string, typeof device | null>(async (ids) => ids.map(() => device)),
    };
    const result = await execute({
      schema: buildSchema(noteStaleFields),
      document: parse('{ protectionDevices(first: 1) { nodes { id } } protectionDevice(id: "1") { id } }'),
      contextValue: { stale, loaders },
    });
    expect(result.errors).toBeUndefined();
    expect(stale.fields).toEqual([
      { path: ['protectionDevices'], age: 2 },
      { path: ['protectionDevice'], age: 2 },
    ]);
  });
});
