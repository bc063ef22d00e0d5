// The v1 envelope (rest-v1.md, "Envelope and errors"): every body is a JSON object with an integer
// `error` and a `messages` list, and a success body carries its operation's result beside them.
// What each operation's result must look like is declared with its route, by its domain, from the
// domains' wire records.
import { anyArray, arrayOf, checkAt, int, isObject, nonNegativeInt, type Check } from './check.ts';
import type { UpstreamDetail } from '../errors.ts';
import { normalizeMessages } from './outcome.ts';

/** The body as a JSON object, or undefined when it is not one (not JSON, an array, a number…). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The envelope of a 2xx body: `error` must be an integer; `messages`, when present, an array
 * (an absent `messages` is tolerated as `[]`).
 */
export function checkEnvelope(body: Record<string, unknown>): void {
  checkAt('error', int, body.error);
  if (body.messages !== undefined) checkAt('messages', anyArray, body.messages);
}

/** What `extensions.upstream` says of a failed response; `body` undefined when it was not JSON. */
export function upstreamDetail(status: number, body: Record<string, unknown> | undefined): UpstreamDetail {
  const error = body !== undefined && Number.isSafeInteger(body.error) ? (body.error as number) : null;
  return { status, error, messages: normalizeMessages(body?.messages) };
}

/** A success body's check: returns the operation's result, or throws ContractViolation. */
export type ResultCheck<T> = (body: Record<string, unknown>) => T;

/** A page of a v1 list operation: `total` items in all, `data` the page. */
export interface WireList<T> {
  total: number;
  data: T[];
}

/** The result of a list operation: `total` and `data`, each item checked. */
export function listOf<T>(item: Check<T>): ResultCheck<WireList<T>> {
  const items = arrayOf(item);
  return (body) => ({ total: checkAt('total', nonNegativeInt, body.total), data: checkAt('data', items, body.data) });
}

/** The result held in one field of the body. */
export function fieldOf<T>(name: string, check: Check<T>): ResultCheck<T> {
  return (body) => checkAt(name, check, body[name]);
}
