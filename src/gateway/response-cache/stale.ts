// The answers one GraphQL request was served stale (the upstream failed, the cache answered), and
// the fields they reached, for `extensions.stale`. The upstream client hands the cache what it
// built from a stale answer, which is marked here (the result, its list and the list's records:
// what the loaders hand on); a field that takes a marked value from the request's loaders is noted
// with its path (stale-fields.ts), with no help from its resolver.
import { responsePathAsArray, type GraphQLResolveInfo } from 'graphql';

export interface StaleField {
  path: (string | number)[];
  /** Seconds since the upstream gave the answer served. */
  age: number;
}

/** Paths listed at most: a list of stale fields is a warning, not a second answer. */
const MAX_FIELDS = 100;

export class StaleReads {
  readonly #ages = new WeakMap<object, number>();
  readonly fields: StaleField[] = [];

  /** A value built from an answer `ageMs` old, handed out by the upstream client. */
  mark(value: unknown, ageMs: number): void {
    const age = Math.floor(ageMs / 1000);
    if (value === null || typeof value !== 'object') return;
    this.#ages.set(value, age);
    const list = (value as { data?: unknown }).data;
    if (!Array.isArray(list)) return;
    this.#ages.set(list, age);
    for (const item of list) if (item !== null && typeof item === 'object') this.#ages.set(item, age);
  }

  /** The field `info` resolves was given `value`: its path is noted when the value is marked. */
  note(info: Pick<GraphQLResolveInfo, 'path'>, value: unknown): void {
    if (value === null || typeof value !== 'object') return;
    const age = this.#ages.get(value);
    if (age === undefined || this.fields.length >= MAX_FIELDS) return;
    this.fields.push({ path: responsePathAsArray(info.path), age });
  }
}
