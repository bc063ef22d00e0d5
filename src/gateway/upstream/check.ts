// Runtime checks of the JSON the upstream sends, written so that each check also declares the
// TypeScript type of what it lets through: a wire record is declared once, as its check, and its
// type is `Infer<typeof check>`. A field the check lets through as null is nullable in the type,
// so the compiler, not a reviewer, keeps the two in step.
//
// Checks walk the value and throw; they build nothing. A body that keeps the contract, the common
// case, costs no path string and no copy: the path of a mismatch is put together on the way out.

/** The body breaks the contract; `reason` names the place and the expectation, never a value. */
export class ContractViolation extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ContractViolation';
  }
}

declare const checked: unique symbol;

/** A check of one value; `T` is the type of a value it lets through (a phantom: nothing at run time). */
export interface Check<T> {
  (value: unknown): void;
  readonly [checked]?: T;
}

/** The type a check lets through. */
export type Infer<C> = C extends Check<infer T> ? T : never;

/** A value below the checked one breaks the contract; each level adds its field name or index. */
class Mismatch {
  path = '';
  constructor(readonly expected: string) {}
}

function fail(expected: string): never {
  throw new Mismatch(expected);
}

/** `error`, when it is a Mismatch, with `segment` (a field name, or `[i]`) in front of its path. */
function within(segment: string, error: unknown): unknown {
  if (error instanceof Mismatch) {
    const below = error.path;
    error.path = below === '' ? segment : below.startsWith('[') ? segment + below : `${segment}.${below}`;
  }
  return error;
}

/** Runs `check` on a top-level value named `name`: a mismatch becomes the ContractViolation naming its place. */
export function checkAt<T>(name: string, check: Check<T>, value: unknown): T {
  try {
    check(value);
  } catch (error) {
    if (!(error instanceof Mismatch)) throw error;
    within(name, error);
    throw new ContractViolation(`${error.path || 'body'}: expected ${error.expected}`);
  }
  return value as T;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const int: Check<number> = (v) => {
  if (!Number.isSafeInteger(v)) fail('an integer');
};
export const nonNegativeInt: Check<number> = (v) => {
  if (!Number.isSafeInteger(v) || (v as number) < 0) fail('a non-negative integer');
};
export const positiveInt: Check<number> = (v) => {
  if (!Number.isSafeInteger(v) || (v as number) < 1) fail('a positive integer');
};
export const num: Check<number> = (v) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail('a number');
};
export const str: Check<string> = (v) => {
  if (typeof v !== 'string') fail('a string');
};
export const anyArray: Check<unknown[]> = (v) => {
  if (!Array.isArray(v)) fail('an array');
};
export const anyObject: Check<Record<string, unknown>> = (v) => {
  if (!isObject(v)) fail('an object');
};

/** Null or absent, or what `check` lets through. */
export function nullable<T>(check: Check<T>): Check<T | null | undefined> {
  return (v) => {
    if (v !== null && v !== undefined) check(v);
  };
}

export function arrayOf<T>(check: Check<T>): Check<T[]> {
  return (v) => {
    if (!Array.isArray(v)) fail('an array');
    let i = 0;
    try {
      for (; i < v.length; i++) check(v[i]);
    } catch (error) {
      throw within(`[${i}]`, error);
    }
  };
}

type Shape<F extends Record<string, Check<unknown>>> = { [K in keyof F]: Infer<F[K]> };

/**
 * An object with at least these fields, each checked. Fields the contract does not name are
 * allowed (a newer upstream may add some) and left out of the type.
 */
export function shape<F extends Record<string, Check<unknown>>>(fields: F): Check<Shape<F>> {
  const names = Object.keys(fields);
  const checks = names.map((name) => fields[name]!);
  return (v) => {
    if (!isObject(v)) fail('an object');
    let i = 0;
    try {
      for (; i < names.length; i++) checks[i]!(v[names[i]!]);
    } catch (error) {
      throw within(names[i]!, error);
    }
  };
}
