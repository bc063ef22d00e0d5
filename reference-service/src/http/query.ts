import { validationFailed } from './errors.ts';

// Plain decimal integers only: no sign, exponent, fraction, spaces or leading zeros.
const NON_NEGATIVE_INTEGER = /^(?:0|[1-9]\d*)$/;

/** `text` as a non-negative safe integer, or undefined when it is not one. */
export function parseNonNegativeInteger(text: string): number | undefined {
  if (!NON_NEGATIVE_INTEGER.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** `text` as a positive safe integer, or undefined. */
export function parsePositiveInteger(text: string): number | undefined {
  const value = parseNonNegativeInteger(text);
  return value !== undefined && value > 0 ? value : undefined;
}

/** A path parameter that must be a positive integer (400 `validation_failed` naming it otherwise). */
export function positiveIntegerParam(params: Record<string, string>, name: string): number {
  const value = parsePositiveInteger(params[name] ?? '');
  if (value === undefined) throw validationFailed(`${name} must be a positive integer.`, name);
  return value;
}

/**
 * Every value of a repeatable query parameter, accepting `name` and `name[]` as the same name
 * (`services=a&services[]=b`). Empty values are dropped.
 */
export function queryValues(query: URLSearchParams, name: string): string[] {
  const base = name.endsWith('[]') ? name.slice(0, -2) : name;
  return [...query.getAll(base), ...query.getAll(`${base}[]`)].filter((value) => value !== '');
}

/** The value of a single-valued query parameter; given more than once is 400. */
export function querySingle(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw validationFailed(`${name} may be given only once.`, name);
  return values[0];
}

/** An integer query parameter within [min, max], `fallback` when absent; anything else is 400. */
export function queryInteger(
  query: URLSearchParams,
  name: string,
  { min, max, fallback }: { min: number; max?: number; fallback: number },
): number {
  const text = querySingle(query, name);
  if (text === undefined) return fallback;
  const value = parseNonNegativeInteger(text);
  const range = max === undefined ? `at least ${min}` : `from ${min} to ${max}`;
  if (value === undefined || value < min || (max !== undefined && value > max)) {
    throw validationFailed(`${name} must be an integer ${range}.`, name);
  }
  return value;
}

/** A positive-integer query parameter (an organization id, say), undefined when absent. */
export function queryPositiveInteger(query: URLSearchParams, name: string): number | undefined {
  const text = querySingle(query, name);
  if (text === undefined) return undefined;
  const value = parsePositiveInteger(text);
  if (value === undefined) throw validationFailed(`${name} must be a positive integer.`, name);
  return value;
}

export interface SortOrder<F extends string> {
  field: F;
  descending: boolean;
}

/**
 * The `order` query parameter: a field name for ascending, `-` and the field name for descending,
 * one of `fields`; `fallback` (same syntax) when absent. Anything else is 400 naming `name`.
 */
export function queryOrder<F extends string>(
  query: URLSearchParams,
  fields: readonly F[],
  fallback: F | `-${F}`,
  name = 'order',
): SortOrder<F> {
  const text = querySingle(query, name) ?? fallback;
  const descending = text.startsWith('-');
  const field = (descending ? text.slice(1) : text) as F;
  if (!fields.includes(field)) {
    throw validationFailed(`${name} must be one of ${fields.join(', ')}, optionally preceded by "-".`, name);
  }
  return { field, descending };
}

/**
 * Refuses a query string whose percent-escapes are not UTF-8 (`search=%ED%A0%80`, a lone
 * surrogate): URLSearchParams would read them as U+FFFD, and a search or a stored value would be
 * other than what was sent. 400 naming the parameter.
 */
export function checkQueryEncoding(rawQuery: string): void {
  if (!rawQuery.includes('%')) return;
  for (const pair of rawQuery.split('&')) {
    const [name = '', value = ''] = pair.split('=', 2);
    try {
      decodeURIComponent(value.replace(/\+/g, ' '));
      decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      const shown = (() => {
        try {
          return decodeURIComponent(name);
        } catch {
          return name.slice(0, 40);
        }
      })();
      throw validationFailed(`The query parameter ${shown} is not valid percent-encoded UTF-8.`, shown);
    }
  }
}
