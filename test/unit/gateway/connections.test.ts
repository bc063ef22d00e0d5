// Relay connections over offset/limit/total: every combination of arguments against a list of N
// items, walks over the whole list both ways, cursor misuse, limits, and a list that moves.
import { describe, expect, it } from 'vitest';
import {
  connectionFromArray,
  resolveOffsetConnection,
  type Connection,
  type ConnectionArgs,
} from '../../../src/gateway/connections/connection.ts';
import { GatewayError } from '../../../src/gateway/errors.ts';

const BINDING = JSON.stringify({ filter: { services: ['waf'] }, order: 'id' });
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** An upstream list of `items` that records every call and checks its limits as the v1 service does. */
function fakeUpstream<T>(items: T[] | (() => T[]), maxLimit = 100) {
  const calls: [offset: number, limit: number][] = [];
  const fetch = async (offset: number, limit: number) => {
    calls.push([offset, limit]);
    expect(Number.isInteger(offset) && offset >= 0).toBe(true);
    expect(Number.isInteger(limit) && limit >= 1 && limit <= maxLimit).toBe(true);
    const all = typeof items === 'function' ? items() : items;
    return { total: all.length, items: all.slice(offset, offset + limit) };
  };
  return { calls, fetch };
}

async function offsetPage(n: number, args: ConnectionArgs, defaultSize: number | 'all' = 10) {
  const upstream = fakeUpstream(range(n));
  const page = await resolveOffsetConnection(args, { binding: BINDING, defaultSize, fetch: upstream.fetch });
  return { page, calls: upstream.calls };
}

function arrayPage(n: number, args: ConnectionArgs, defaultSize: number | 'all' = 10) {
  return connectionFromArray(range(n), args, { binding: BINDING, defaultSize });
}

/** A page as the executor reads it: each field by property access (some are computed on demand). */
function read<T>(page: Connection<T>) {
  const { hasNextPage, hasPreviousPage, startCursor, endCursor } = page.pageInfo;
  return { edges: page.edges, nodes: page.nodes, pageInfo: { hasNextPage, hasPreviousPage, startCursor, endCursor }, totalCount: page.totalCount };
}

/** The cursor of the item at `offset` of a list of n, got the way a client gets it. */
function cursorAt(n: number, offset: number): string {
  const page = arrayPage(n, { first: 1, ...(offset > 0 ? { after: cursorAt(n, offset - 1) } : {}) });
  expect(page.nodes).toEqual([offset]);
  return page.edges[0]!.cursor;
}

/** What Relay's algorithm gives for items 0..n-1, computed naively. */
function expected(n: number, args: ConnectionArgs, offsets: { after?: number; before?: number }, defaultSize: number | 'all') {
  let window = range(n);
  if (offsets.after !== undefined) window = window.filter((i) => i > offsets.after!);
  if (offsets.before !== undefined) window = window.filter((i) => i < offsets.before!);
  const backward = args.last != null || (args.first == null && offsets.before !== undefined && offsets.after === undefined);
  const size = args.first ?? args.last ?? (defaultSize === 'all' ? Infinity : defaultSize);
  const nodes = backward ? window.slice(Math.max(0, window.length - size)) : window.slice(0, size);
  // An empty page sits just after `after` (at the end, at most).
  const start = nodes[0] ?? Math.min((offsets.after ?? -1) + 1, n);
  return {
    nodes,
    hasPreviousPage: start > 0,
    hasNextPage: (nodes.at(-1) ?? start - 1) + 1 < n,
  };
}

function checkShape<T>(page: Connection<T>, total: number) {
  expect(page.totalCount).toBe(total);
  expect(page.nodes).toEqual(page.edges.map((e) => e.node));
  expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor ?? null);
  expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
  expect(new Set(page.edges.map((e) => e.cursor)).size).toBe(page.edges.length);
}

describe('every combination of arguments', () => {
  const n = 7;
  const sizes = [undefined, 1, 3, 7, 10];
  const positions = [undefined, 0, 2, 6];
  const cases: { args: ConnectionArgs; offsets: { after?: number; before?: number } }[] = [];
  for (const after of positions) {
    for (const before of positions) {
      for (const first of sizes) cases.push({ args: { first }, offsets: { after, before } });
      for (const last of sizes.slice(1)) cases.push({ args: { last }, offsets: { after, before } });
    }
  }

  for (const defaultSize of [3, 'all'] as const) {
    it(`matches Relay's algorithm, over the upstream and over an array (default ${defaultSize})`, async () => {
      for (const { args: sizeArgs, offsets } of cases) {
        const args: ConnectionArgs = {
          ...sizeArgs,
          ...(offsets.after !== undefined ? { after: cursorAt(n, offsets.after) } : {}),
          ...(offsets.before !== undefined ? { before: cursorAt(n, offsets.before) } : {}),
        };
        const want = expected(n, args, offsets, defaultSize);
        const fromArray = arrayPage(n, args, defaultSize);
        const { page } = await offsetPage(n, args, defaultSize);
        for (const got of [fromArray, page]) {
          const context = JSON.stringify({ sizeArgs, offsets, defaultSize });
          expect(got.nodes, context).toEqual(want.nodes);
          expect(got.pageInfo.hasPreviousPage, context).toBe(want.hasPreviousPage);
          expect(got.pageInfo.hasNextPage, context).toBe(want.hasNextPage);
          checkShape(got, n);
        }
      }
    });
  }
});

describe('walking the whole list', () => {
  for (const n of [0, 1, 9, 10, 11, 95]) {
    for (const size of [1, 10, 100]) {
      it(`forward and backward over ${n} items, pages of ${size}`, async () => {
        const upstream = fakeUpstream(range(n));
        const opts = { binding: BINDING, defaultSize: 10, fetch: upstream.fetch };

        const forward: number[] = [];
        let after: string | null = null;
        for (let guard = 0; ; guard++) {
          expect(guard).toBeLessThanOrEqual(n);
          const page: Connection<number> = await resolveOffsetConnection({ first: size, after }, opts);
          checkShape(page, n);
          expect(page.pageInfo.hasPreviousPage).toBe(forward.length > 0 && n > 0);
          forward.push(...page.nodes);
          if (!page.pageInfo.hasNextPage) break;
          after = page.pageInfo.endCursor;
        }
        expect(forward).toEqual(range(n));

        const backward: number[] = [];
        let before: string | null = null;
        for (let guard = 0; ; guard++) {
          expect(guard).toBeLessThanOrEqual(n);
          const page: Connection<number> = await resolveOffsetConnection({ last: size, before }, opts);
          checkShape(page, n);
          expect(page.pageInfo.hasNextPage).toBe(backward.length > 0 && n > 0);
          backward.unshift(...page.nodes);
          if (!page.pageInfo.hasPreviousPage) break;
          before = page.pageInfo.startCursor;
        }
        expect(backward).toEqual(range(n));
      });
    }
  }

  it('an array walked with the default size "all" is one page', () => {
    const page = arrayPage(250, {}, 'all');
    expect(page.nodes).toEqual(range(250));
    expect(page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
  });
});

describe('upstream calls', () => {
  it('first/after: one call at the right offset and limit', async () => {
    const { page, calls } = await offsetPage(50, { first: 5, after: cursorAt(50, 9) });
    expect(page.nodes).toEqual([10, 11, 12, 13, 14]);
    expect(calls).toEqual([[10, 5]]);
  });

  it('the default size when no size is given', async () => {
    const { page, calls } = await offsetPage(50, {}, 10);
    expect(page.nodes).toEqual(range(10));
    expect(calls).toEqual([[0, 10]]);
  });

  it('last/before: one call ending just before the cursor', async () => {
    const { page, calls } = await offsetPage(50, { last: 5, before: cursorAt(50, 20) });
    expect(page.nodes).toEqual([15, 16, 17, 18, 19]);
    expect(calls).toEqual([[15, 5]]);
  });

  it('last without before: the total first, then the page (two calls)', async () => {
    const { page, calls } = await offsetPage(50, { last: 5 });
    expect(page.nodes).toEqual([45, 46, 47, 48, 49]);
    expect(page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(calls).toEqual([
      [0, 1],
      [45, 5],
    ]);
  });

  it('"all" over the upstream fetches in pages of at most maxSize', async () => {
    const upstream = fakeUpstream(range(250));
    const page = await resolveOffsetConnection({}, { binding: BINDING, defaultSize: 'all', fetch: upstream.fetch });
    expect(page.nodes).toEqual(range(250));
    expect(upstream.calls).toEqual([
      [0, 100],
      [100, 100],
      [200, 100],
    ]);
  });

  it('maxSize bounds first/last and every limit asked', async () => {
    const upstream = fakeUpstream(range(30), 20);
    const opts = { binding: BINDING, defaultSize: 'all' as const, maxSize: 20, fetch: upstream.fetch };
    expect((await resolveOffsetConnection({ first: 20 }, opts)).nodes).toHaveLength(20);
    expect((await resolveOffsetConnection({}, opts)).nodes).toEqual(range(30));
    await expect(resolveOffsetConnection({ first: 21 }, opts)).rejects.toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'first' },
    });
  });

  it('an empty window still reports the total', async () => {
    const { page, calls } = await offsetPage(50, { first: 5, after: cursorAt(50, 10), before: cursorAt(50, 11) });
    expect(read(page)).toEqual({
      edges: [],
      nodes: [],
      pageInfo: { hasNextPage: true, hasPreviousPage: true, startCursor: null, endCursor: null },
      totalCount: 50,
    });
    expect(calls).toHaveLength(1);
  });

  it('an empty list', async () => {
    for (const args of [{}, { first: 3 }, { last: 3 }]) {
      const { page } = await offsetPage(0, args);
      expect(read(page)).toEqual({
        edges: [],
        nodes: [],
        pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
        totalCount: 0,
      });
    }
  });
});

describe('the connection object', () => {
  // An object literal with getters (closures over the page) gets a hidden class of its own in V8's
  // old generation, which keeps the page's items, the upstream's parsed answer, alive through
  // every young-generation collection: the lazy fields are accessors of a class instead.
  it('has no accessors of its own: its lazy fields (edges, cursors) are on its class', () => {
    const page = arrayPage(20, { first: 5 });
    for (const value of [page, page.pageInfo]) {
      for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(value))) {
        expect(descriptor.get, name).toBeUndefined();
        expect(typeof descriptor.value, name).not.toBe('function');
      }
    }
    expect(read(page).pageInfo.endCursor).toBe(page.edges[4]!.cursor);
  });
});

describe('arguments and cursors the gateway refuses', () => {
  const opts = (fetch = fakeUpstream(range(20)).fetch) => ({ binding: BINDING, defaultSize: 10, fetch });

  async function refusal(args: ConnectionArgs, field: string) {
    const upstream = fakeUpstream(range(20));
    const err: unknown = await resolveOffsetConnection(args, opts(upstream.fetch)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).extensions).toEqual({ code: 'BAD_USER_INPUT', field });
    expect(upstream.calls).toEqual([]); // refused before any upstream call
    expect(() => connectionFromArray(range(20), args, opts())).toThrow(GatewayError);
    return err as GatewayError;
  }

  it.each<[ConnectionArgs, string]>([
    [{ first: 0 }, 'first'],
    [{ first: -1 }, 'first'],
    [{ first: 101 }, 'first'],
    [{ first: 2.5 }, 'first'],
    [{ last: 0 }, 'last'],
    [{ last: 101 }, 'last'],
    [{ first: 1, last: 1 }, 'last'],
  ])('sizes %j', async (args, field) => {
    await refusal(args, field);
  });

  it('accepts the bounds 1 and 100', async () => {
    expect((await offsetPage(200, { first: 1 })).page.nodes).toEqual([0]);
    expect((await offsetPage(200, { first: 100 })).page.nodes).toHaveLength(100);
    expect((await offsetPage(200, { last: 100 })).page.nodes).toHaveLength(100);
  });

  it('null arguments mean absent', async () => {
    const { page } = await offsetPage(20, { first: null, after: null, last: null, before: null });
    expect(page.nodes).toEqual(range(10));
  });

  it('a cursor made under another filter, order or parent', async () => {
    const other = connectionFromArray(range(20), { first: 3 }, { binding: JSON.stringify({ order: '-id' }), defaultSize: 10 });
    const err = await refusal({ after: other.pageInfo.endCursor }, 'after');
    expect(err.message).toMatch(/another filter, order or parent/);
    await refusal({ last: 2, before: other.pageInfo.endCursor }, 'before');
  });

  it.each([
    'garbage',
    '',
    '!!!',
    Buffer.from('[1,5]').toString('base64url'),
    Buffer.from('{"o":5}').toString('base64url'),
    Buffer.from('[2,5,"abcdefghijkl"]').toString('base64url'),
    'x'.repeat(500),
  ])('a malformed cursor %j', async (cursor) => {
    const err = await refusal({ after: cursor }, 'after');
    expect(err.message).toMatch(/not valid/);
  });

  it('a forged cursor with a negative or fractional offset, under the right binding', async () => {
    const good = cursorAt(20, 3);
    const [, , hash] = JSON.parse(Buffer.from(good, 'base64url').toString()) as [number, number, string];
    for (const offset of [-1, 1.5]) {
      await refusal({ after: Buffer.from(JSON.stringify([1, offset, hash])).toString('base64url') }, 'after');
    }
    // The same cursor, re-spelled: only the bytes the gateway issued are accepted.
    await refusal({ after: Buffer.from(JSON.stringify([1, 3, hash], null, 1)).toString('base64url') }, 'after');
  });

  it('cursors are opaque: no offset or binding in plain sight', () => {
    const cursor = cursorAt(20, 3);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('services');
  });
});

describe('a list that moves between calls', () => {
  it('a cursor past the end of a shrunken list gives an empty page, not an error', async () => {
    const after = cursorAt(50, 40);
    const { page } = await offsetPage(20, { first: 5, after });
    expect(page.nodes).toEqual([]);
    expect(page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true, startCursor: null });
    // Backward from past the end: the last page of the list as it is now (one more call).
    const back = await offsetPage(20, { last: 5, before: cursorAt(50, 45) });
    expect(back.page.nodes).toEqual([15, 16, 17, 18, 19]);
    expect(back.page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(back.calls).toEqual([
      [40, 5],
      [15, 5],
    ]);
  });

  it('last without before: a total that changes between the two calls is corrected once', async () => {
    let items = range(30);
    const upstream = fakeUpstream(() => items);
    const fetch = async (offset: number, limit: number) => {
      const result = await upstream.fetch(offset, limit);
      if (upstream.calls.length === 1) items = range(12); // shrinks after the probe
      return result;
    };
    const page = await resolveOffsetConnection({ last: 5 }, { binding: BINDING, defaultSize: 10, fetch });
    expect(page.nodes).toEqual([7, 8, 9, 10, 11]);
    expect(page.totalCount).toBe(12);
    expect(page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(upstream.calls).toEqual([
      [0, 1],
      [25, 5],
      [7, 5],
    ]);
  });

  it('a list that keeps moving: still a page, never a negative offset', async () => {
    let size = 40;
    const upstream = fakeUpstream(() => range(size));
    const fetch = async (offset: number, limit: number) => {
      const result = await upstream.fetch(offset, limit);
      size = size === 40 ? 3 : 40;
      return result;
    };
    const page = await resolveOffsetConnection({ last: 10 }, { binding: BINDING, defaultSize: 10, fetch });
    checkShape(page, page.totalCount);
    expect(upstream.calls.every(([offset]) => offset >= 0)).toBe(true);
  });

  it('an upstream that returns more than asked is cut to the page', async () => {
    const fetch = async (offset: number) => ({ total: 100, items: range(100).slice(offset) });
    const page = await resolveOffsetConnection({ first: 3 }, { binding: BINDING, defaultSize: 10, fetch });
    expect(page.nodes).toEqual([0, 1, 2]);
    expect(page.pageInfo.hasNextPage).toBe(true);
  });
});
