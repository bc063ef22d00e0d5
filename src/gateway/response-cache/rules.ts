// What each v1 route does to the response cache, declared by its domain beside the route
// (domains/<domain>/routes.ts) with `cacheRules`. The types make every decision explicit, so that
// a route cannot be added without saying what it does to the cache:
// - every route of a domain's table has a rule (a missing one is a compile error);
// - a read (GET) is kept under tags, and names the mutations of its table that invalidate it, or
//   says why none does (`changedOnlyUpstream`: only the TTL then bounds how old it is served);
// - a mutation names the tags it invalidates, or says why no cached read holds its data
//   (`noCachedRead`);
// - a read may name only mutations that invalidate something: naming one whose rule is
//   `noCachedRead`, or a read, does not compile.
// Tags name data, not callers: an invalidation reaches the answers of every key.
import type { CacheUse, CallInput } from '../upstream/call-types.ts';
import type { HttpMethod, Route } from '../upstream/routes.ts';

/** The tags of one call, from what it was called with. */
export type Tags = (input: CallInput) => readonly string[];

/** A read that mutations sent through the gateway change: it is invalidated by them. */
interface InvalidatedRead<Mutation extends string> {
  /** The tags its answers are kept under. */
  readonly read: Tags;
  /** The mutations (of the same table) whose invalidations reach these tags. */
  readonly invalidatedBy: readonly [Mutation, ...Mutation[]];
  readonly changedOnlyUpstream?: never;
}

/** A read of data no v1 operation changes: it changes only behind the gateway's back. */
interface UpstreamOnlyRead {
  readonly read: Tags;
  /** Why nothing the gateway sends changes it. */
  readonly changedOnlyUpstream: string;
  readonly invalidatedBy?: never;
}

export type ReadRule<Mutation extends string = string> = InvalidatedRead<Mutation> | UpstreamOnlyRead;

/** A mutation whose data cached reads hold: these tags are invalidated once it was sent, whatever its outcome. */
interface InvalidatingMutation {
  readonly invalidates: Tags;
  readonly noCachedRead?: never;
}

/** A mutation whose data no cached read holds: it invalidates nothing, and says why. */
interface UncachedMutation {
  /** Why no cached answer holds what it changes. Should a read of that data appear, this becomes `invalidates`. */
  readonly noCachedRead: string;
  readonly invalidates?: never;
}

export type MutationRule = InvalidatingMutation | UncachedMutation;

export type CacheRule = ReadRule | MutationRule;

type AnyRoute = Route<any, HttpMethod>;
type RouteTable = Record<string, AnyRoute>;

/** The mutations of a table whose rule invalidates tags: the only ones a read may name. */
type InvalidatingNames<R extends RouteTable, C> = {
  [K in keyof R & keyof C]: R[K] extends Route<any, 'GET'> ? never : C[K] extends { noCachedRead: string } ? never : K;
}[keyof R & keyof C] &
  string;

/** One rule per route of `R`: a read rule for a GET, a mutation rule for the others. */
export type CacheRules<R extends RouteTable, Mutation extends string = string> = {
  readonly [K in keyof R]: R[K] extends Route<any, 'GET'> ? ReadRule<Mutation> : MutationRule;
};

/** A route and its rule, as the response cache is given them. */
export interface DeclaredRule {
  /** The route's name in its domain's table, for a reader and for the tests. */
  readonly name: string;
  readonly route: Route<unknown>;
  readonly rule: CacheRule;
}

/**
 * A domain's rules for its table of routes, checked by the compiler: see the top of this file.
 * `rules` is inferred as written (`const`) so that the names a read gives are checked against the
 * mutations that invalidate something.
 */
export function cacheRules<R extends RouteTable, const C extends CacheRules<R>>(routes: R, rules: C & CacheRules<R, InvalidatingNames<R, C>>): readonly DeclaredRule[] {
  return Object.keys(routes).map((name) => ({ name, route: routes[name]!, rule: (rules as Record<string, CacheRule>)[name]! }));
}

/** What a call of a route with this rule is to the cache (see `CallerCache.use`). */
export function useOf(rule: CacheRule, input: CallInput): CacheUse | undefined {
  if ('read' in rule) return { read: rule.read(input) };
  if (rule.invalidates !== undefined) return { invalidates: rule.invalidates(input) };
  return undefined;
}
