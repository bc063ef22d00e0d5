// Where a feature's local state lives: the state its Redis adapter falls back to while Redis is
// unreachable. A lone gateway keeps it in its own memory. The workers of GATEWAY_WORKERS must not:
// each in its own memory, a mutation on one would not invalidate the other's cache, and a link
// minted on one would be unknown to the other. Theirs lives in their primary's memory, reached over
// the cluster's channel (through-primary.ts, primary-state.ts): one state for all of them until
// Redis returns. A feature names its local store once (`localStore`); the primary makes the same
// store from the same description, so neither side knows any feature.

/** The methods of `T` that answer a promise: those a store exposes, whose arguments and answers are JSON. */
export type AsyncMethods<T> = {
  [K in keyof T]: T[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof T] &
  string;

/** A feature's local store: its name (one per feature), how to make it, and what it is asked. */
export interface LocalStore<T extends object> {
  readonly name: string;
  readonly methods: readonly AsyncMethods<T>[];
  make(): T;
}

/** A local store of any feature, as the primary holds them. */
export interface AnyLocalStore {
  readonly name: string;
  readonly methods: readonly string[];
  make(): object;
}

export function localStore<T extends object>(name: string, methods: readonly AsyncMethods<T>[], make: () => T): LocalStore<T> {
  return { name, methods, make };
}

export interface LocalState {
  /**
   * The store a feature falls back to: `own` (made by `store.make()` when not given) in a lone
   * process; in a worker, the primary's, with `own` answering whenever the primary does not.
   */
  of<T extends object>(store: LocalStore<T>, own?: T): T;
}

/** A lone process: its own memory, with no cost at all. */
export const IN_PROCESS: LocalState = {
  of: (store, own) => own ?? store.make(),
};
