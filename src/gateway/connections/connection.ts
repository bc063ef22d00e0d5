// Relay connections over the upstream's offset/limit/total (graphql.md, "Connections"), in one
// place. A cursor names an absolute offset in the list as bound (filter + order + parent); page
// info comes from the page's offsets and the upstream's total, so it is exact both ways.
import { badUserInput } from '../errors.ts';
import { cursorCodec, type CursorCodec } from './cursor.ts';

export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: PageInfo;
  totalCount: number;
}

export interface ConnectionOptions {
  /** Canonical string of what the cursor is bound to: normalised filter + order + parent id. */
  binding: string;
  /** Page size when neither `first` nor `last` is given. */
  defaultSize: number | 'all';
  /** Largest `first`/`last`, and largest `limit` ever asked of `fetch`. Default 100. */
  maxSize?: number;
}

export interface OffsetConnectionOptions<T> extends ConnectionOptions {
  /** One upstream page: `limit` is between 1 and `maxSize`; `offset` may be past the end. */
  fetch: (offset: number, limit: number) => Promise<{ total: number; items: T[] }>;
  /** The list's length when the caller knows it already (a time window's): `last` then costs no call for it. */
  total?: number;
}

export const DEFAULT_MAX_PAGE_SIZE = 100;

/**
 * The page each connection type returns when the client gives neither `first` nor `last`
 * (graphql.md, "Connections"); 'all': the frameworks list, which the upstream returns whole. The
 * resolvers page with these and the cost limit counts with them.
 */
export const DEFAULT_PAGE_SIZES = {
  ProtectionDeviceConnection: 50,
  TrafficLogConnection: 10,
  WebProtectionRecordConnection: 50,
  SecurityFrameworkConnection: 'all',
} as const satisfies Record<string, number | 'all'>;

/** What the arguments ask for, checked before any upstream call. */
interface Plan {
  codec: CursorCodec;
  maxSize: number;
  /** First offset the page may start at (just after `after`). */
  lo: number;
  /** Offset the page must end before (`before`), or null for the end of the list. */
  before: number | null;
  backward: boolean;
  /** Items wanted; Infinity for 'all'. */
  size: number;
}

function checkSize(value: number | null | undefined, name: string, maxSize: number): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isInteger(value) || value < 1 || value > maxSize) {
    throw badUserInput(`${name} must be between 1 and ${maxSize}`, name);
  }
  return value;
}

function plan(args: ConnectionArgs, opts: ConnectionOptions): Plan {
  const maxSize = opts.maxSize ?? DEFAULT_MAX_PAGE_SIZE;
  const first = checkSize(args.first, 'first', maxSize);
  const last = checkSize(args.last, 'last', maxSize);
  if (first !== null && last !== null) throw badUserInput('Give first or last, not both', 'last');
  const codec = cursorCodec(opts.binding);
  const after = args.after === undefined || args.after === null ? null : codec.decode(args.after, 'after');
  const before = args.before === undefined || args.before === null ? null : codec.decode(args.before, 'before');
  // Without a size, `before` alone means paging backward (the page just before the cursor).
  const backward = last !== null || (first === null && before !== null && after === null);
  const size = first ?? last ?? (opts.defaultSize === 'all' ? Infinity : opts.defaultSize);
  return { codec, maxSize, lo: after === null ? 0 : after + 1, before, backward, size };
}

/** The page's offsets [start, end) in a list of `total` items (Infinity when not known yet). */
function pageWindow(p: Plan, total: number): { start: number; end: number } {
  const hi = Math.max(p.lo, p.before === null ? total : Math.min(p.before, total));
  return p.backward ? { start: Math.max(p.lo, hi - p.size), end: hi } : { start: p.lo, end: Math.min(hi, p.lo + p.size) };
}

function build<T>(p: Plan, items: T[], start: number, total: number): Connection<T> {
  // An empty page sits where it was asked for, but never past the end of the list.
  const at = items.length > 0 ? start : Math.min(start, total);
  return new PageConnection(p.codec, items, at, total);
}

// The connection and its page info are class instances, their lazy fields accessors on the
// prototype. As object literals with getters (closures over the page), each request's connection
// had a hidden class of its own in V8's old generation, which held the page's items, the
// upstream's parsed answer, through every young-generation collection until the next full one.

/** A page of `items` starting at offset `at` of a list of `total`. */
class PageConnection<T> implements Connection<T> {
  readonly pageInfo: PageInfo;
  #edges: Connection<T>['edges'] | undefined;

  constructor(
    readonly codec: CursorCodec,
    readonly nodes: T[],
    readonly at: number,
    readonly totalCount: number,
  ) {
    this.pageInfo = new PageCursors(this);
  }

  /** Cursors are made when a field asks for them: most clients select `nodes` only. */
  get edges(): Connection<T>['edges'] {
    return (this.#edges ??= this.nodes.map((node, i) => ({ cursor: this.cursor(i), node })));
  }

  cursor(i: number): string {
    return this.codec.encode(this.at + i);
  }
}

class PageCursors implements PageInfo {
  readonly hasPreviousPage: boolean;
  readonly hasNextPage: boolean;

  constructor(readonly page: PageConnection<unknown>) {
    this.hasPreviousPage = page.at > 0;
    this.hasNextPage = page.at + page.nodes.length < page.totalCount;
  }

  get startCursor(): string | null {
    return this.page.nodes.length > 0 ? this.page.cursor(0) : null;
  }

  get endCursor(): string | null {
    return this.page.nodes.length > 0 ? this.page.cursor(this.page.nodes.length - 1) : null;
  }
}

/**
 * A connection over an upstream list paged by offset and limit. Calls: one in the common case;
 * pages larger than `maxSize` (only with defaultSize 'all') take one per `maxSize` items; `last`
 * without `before` first asks for the total (`fetch(0, 1)`), then the page. An empty window still
 * costs one `fetch(0, 1)` for the total. Backward pages are corrected once (one more call) when
 * the list moved under them: the total changed since the probe, or `before` now lies past the end.
 */
export async function resolveOffsetConnection<T>(
  args: ConnectionArgs,
  opts: OffsetConnectionOptions<T>,
): Promise<Connection<T>> {
  const p = plan(args, opts);
  // `last` from the end: the end is the total, which only the upstream knows.
  let total = p.backward && p.before === null ? (opts.total ?? (await opts.fetch(0, 1)).total) : Infinity;
  for (let attempt = 0; ; attempt++) {
    const { start, end } = pageWindow(p, total);
    const known = Number.isFinite(total) ? total : undefined;
    const page = await fetchRange(opts.fetch, p.maxSize, start, end - start, known);
    const moved = p.backward && (known === undefined ? end > page.total : page.total !== known);
    if (!moved || attempt === 1) return build(p, page.items, start, page.total);
    total = page.total;
  }
}

/** Items [start, start + count) in calls of at most `maxSize`; a known total spares a call for nothing. */
async function fetchRange<T>(
  fetch: OffsetConnectionOptions<T>['fetch'],
  maxSize: number,
  start: number,
  count: number,
  knownTotal?: number,
): Promise<{ items: T[]; total: number }> {
  if (count <= 0) {
    return { items: [], total: knownTotal ?? (await fetch(0, 1)).total };
  }
  const items: T[] = [];
  for (;;) {
    const limit = Math.min(maxSize, count - items.length);
    const page = await fetch(start + items.length, limit);
    const got = page.items.length > limit ? page.items.slice(0, limit) : page.items;
    items.push(...got);
    if (got.length < limit || items.length >= count || start + items.length >= page.total) {
      return { items, total: page.total };
    }
  }
}

/** For lists the upstream returns whole (frameworks): the same rules over an array in memory. */
export function connectionFromArray<T>(items: T[], args: ConnectionArgs, opts: ConnectionOptions): Connection<T> {
  const p = plan(args, opts);
  const { start, end } = pageWindow(p, items.length);
  return build(p, items.slice(start, end), start, items.length);
}

/** Checks paging arguments and cursors as a connection would, before any upstream call is made for it. */
export function checkConnectionArgs(args: ConnectionArgs, opts: ConnectionOptions): void {
  plan(args, opts);
}

/** `connectionFromArray` over a list loaded only once the arguments proved valid: bad paging
 *  arguments or a foreign cursor cost no upstream call. */
export async function connectionFromLoadedList<T>(args: ConnectionArgs, opts: ConnectionOptions, load: () => Promise<T[]>): Promise<Connection<T>> {
  plan(args, opts);
  return connectionFromArray(await load(), args, opts);
}
