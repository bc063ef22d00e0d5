import type { EnvelopeMessage } from '../records.ts';
import { invalidInput, problem } from '../http/errors.ts';

/** The longest string a body may carry anywhere, unless a rule says less. */
export const MAX_STRING_LENGTH = 10_000;

/** A dotted path into the body: `security_frameworks.2.frequency`. */
export function fieldPath(prefix: string, name: string | number): string {
  return prefix === '' ? String(name) : `${prefix}.${name}`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Length in characters (code points), as JSON Schema counts it. */
export function characterLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

/** Most problems one answer lists; past them, one more message says how many were left out. */
export const MAX_LISTED_PROBLEMS = 50;

/**
 * Collects the problems of a body, so that one 400 can list them: the first 50, then one
 * `too_many_errors` message counting the rest. Without the cap one bad item per byte made an
 * answer some forty times the size of its request.
 */
export class Problems {
  readonly messages: EnvelopeMessage[] = [];
  #unlisted = 0;

  #add(message: EnvelopeMessage): void {
    if (this.messages.length < MAX_LISTED_PROBLEMS) this.messages.push(message);
    else this.#unlisted += 1;
  }

  /** Problems found, listed or not. */
  get count(): number {
    return this.messages.length + this.#unlisted;
  }

  invalid(field: string, text: string): void {
    this.#add(problem.invalid(field, text));
  }

  unknownField(field: string): void {
    this.#add(problem.unknownField(field));
  }

  /** Reports every key of `object` outside `allowed` as `unknown_field`. */
  unknownFields(object: Record<string, unknown>, allowed: ReadonlySet<string>, prefix: string): void {
    for (const key of Object.keys(object)) if (!allowed.has(key)) this.unknownField(fieldPath(prefix, key));
  }

  /** Throws the 400 listing every problem, if there is any. */
  throwIfAny(): void {
    if (this.count === 0) return;
    const more = this.#unlisted > 0 ? [problem.tooMany(this.#unlisted)] : [];
    throw invalidInput([...this.messages, ...more]);
  }
}

/**
 * Checks a string field: present (unless optional), a string, within [min, max] characters.
 * Returns whether the value is acceptable.
 */
export function checkString(
  problems: Problems,
  value: unknown,
  field: string,
  { min = 0, max = MAX_STRING_LENGTH }: { min?: number; max?: number } = {},
): value is string {
  if (value === undefined) {
    problems.invalid(field, `${field} is required.`);
    return false;
  }
  if (typeof value !== 'string') {
    problems.invalid(field, `${field} must be a string.`);
    return false;
  }
  const length = characterLength(value);
  if (length < min) {
    problems.invalid(field, min === 1 ? `${field} must not be empty.` : `${field} must have at least ${min} characters.`);
    return false;
  }
  if (length > max) {
    problems.invalid(field, `${field} must have at most ${max} characters.`);
    return false;
  }
  return true;
}

/** How deeply a free-form object may nest (a bound that keeps storing and reading it safe). */
export const MAX_NESTING = 32;

/**
 * Checks every string (keys included) inside a free-form JSON value against the string limit,
 * and its nesting against MAX_NESTING, without recursion.
 */
export function checkFreeForm(problems: Problems, value: unknown, field: string): boolean {
  let ok = true;
  const stack: { value: unknown; field: string; depth: number }[] = [{ value, field, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value === 'string') {
      if (item.value.length > MAX_STRING_LENGTH && characterLength(item.value) > MAX_STRING_LENGTH) {
        problems.invalid(item.field, `${item.field} must have at most ${MAX_STRING_LENGTH} characters.`);
        ok = false;
      }
      continue;
    }
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth >= MAX_NESTING) {
      problems.invalid(item.field, `${field} must not nest more than ${MAX_NESTING} levels deep.`);
      ok = false;
      continue;
    }
    const entries: [string | number, unknown][] = Array.isArray(item.value)
      ? [...item.value.entries()]
      : Object.entries(item.value);
    // Pushed last to first, so that problems come out in document order.
    for (const [key, child] of entries.reverse()) {
      const childField = fieldPath(item.field, key);
      if (typeof key === 'string' && key.length > MAX_STRING_LENGTH && characterLength(key) > MAX_STRING_LENGTH) {
        problems.invalid(childField, `A key in ${field} must have at most ${MAX_STRING_LENGTH} characters.`);
        ok = false;
      }
      stack.push({ value: child, field: childField, depth: item.depth + 1 });
    }
  }
  return ok;
}
