// A v1 route as the transport knows it: method, path template, the check of a success body (whose
// type is the route's result) and how the route's v1 names read in GraphQL. Each domain declares
// its own routes with `route()` (domains/<domain>/routes.ts); the transport knows none of them.
// The template is also the route's name in logs and metrics: it never carries an id, a query or
// the key.
import type { ResultCheck } from './envelope.ts';
import type { FieldNames } from './field-names.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Route<T, M extends HttpMethod = HttpMethod> {
  readonly method: M;
  readonly template: string;
  /** `GET /api/v1/atb/{id}/traffic`: how a call is named in `onCall`, logs and metrics. */
  readonly name: string;
  readonly result: ResultCheck<T>;
  /** How v1's names of this call's parameters and body read in GraphQL, for error messages. */
  readonly fields?: FieldNames;
}

/** A route: `{name}` placeholders in the template are filled per call (`fillPath`). */
export function route<T, M extends HttpMethod>(method: M, template: string, result: ResultCheck<T>, fields?: FieldNames): Route<T, M> {
  return { method, template, name: `${method} ${template}`, result, ...(fields ? { fields } : {}) };
}

/** A path segment that cannot escape its place: `/`, `?`, `#` encoded, and `.`/`..` made literal. */
function segment(value: string): string {
  if (value === '.' || value === '..') return value.replaceAll('.', '%2E');
  return encodeURIComponent(value);
}

/** The template with its `{name}` placeholders filled, each value URL-encoded. */
export function fillPath(route: Pick<Route<unknown>, 'template' | 'name'>, params: Record<string, string> = {}): string {
  return route.template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`Missing path parameter ${name} for ${route.name}`);
    return segment(value);
  });
}
