// The response cache as one request's upstream client uses it (upstream's CallerCache): the
// store, partitioned by the request's key, the rules its domains declared for their routes, and
// the request's stale record.
import type { CacheUse, CallerCache, CallInput, KeptAnswer } from '../upstream/call-types.ts';
import type { Route } from '../upstream/routes.ts';
import { useOf, type CacheRule } from './rules.ts';
import type { StaleReads } from './stale.ts';
import type { ResponseCacheStore } from './store.ts';

export class CacheOfCaller implements CallerCache {
  constructor(
    private readonly store: ResponseCacheStore,
    private readonly rules: ReadonlyMap<Route<unknown>, CacheRule>,
    /** The key's hash: answers are never shared across keys. */
    private readonly partition: string,
    /** Undefined when no stale answer is ever served (STALE_IF_ERROR_S is 0). */
    private readonly staleReads: StaleReads | undefined,
  ) {}

  use(route: Route<unknown>, input: CallInput): CacheUse | undefined {
    const rule = this.rules.get(route);
    return rule === undefined ? undefined : useOf(rule, input);
  }

  lookup(path: string, tags: readonly string[]): Promise<{ fresh: KeptAnswer } | { stamp: unknown }> {
    return this.store.lookup(this.partition, path, tags);
  }

  keep(path: string, text: string, tags: readonly string[], stamp: unknown): Promise<void> {
    return this.store.keep(this.partition, path, text, tags, stamp);
  }

  async stale(path: string, tags: readonly string[]): Promise<KeptAnswer | undefined> {
    // Without a stale window not even an answer kept in the same millisecond stands in for a failure.
    if (this.staleReads === undefined) return undefined;
    return this.store.stale(this.partition, path, tags);
  }

  servedStale(value: unknown, ageMs: number): void {
    this.staleReads?.mark(value, ageMs);
  }

  invalidate(tags: readonly string[]): Promise<void> {
    return this.store.invalidate(tags);
  }
}
