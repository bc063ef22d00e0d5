import type { IncomingMessage, ServerResponse } from 'node:http';
import type { V1Store } from '../storage/store.ts';
import type { Principal } from '../auth.ts';
import { methodNotAllowed, notFound } from './errors.ts';

/** What a route handler gets for one authenticated request. */
export interface V1Context {
  store: V1Store;
  req: IncomingMessage;
  /** Write to it only for a download (then return nothing); otherwise return a result. */
  res: ServerResponse;
  method: string;
  /** The path without the query string, as sent. */
  path: string;
  /** Path parameters named in the route pattern, percent-decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The key that authenticated the request. */
  principal: Principal;
  /** The body as JSON under the contract's rules (413, 415, `invalid_json`); `{}` without a body. */
  readJson(): Promise<unknown>;
  log(line: string): void;
}

/** A JSON success: the operation's fields, wrapped in the envelope by the server. */
export interface V1Result {
  status: number;
  fields: Record<string, unknown>;
}

/**
 * Returns a result to answer with the envelope, or nothing when it has written the response
 * itself (a streamed download). Throw a `V1Error` to fail with its status and messages.
 */
export type V1Handler = (ctx: V1Context) => V1Result | void | Promise<V1Result | void>;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface V1Route {
  method: HttpMethod;
  /** Segments, with `:name` for a parameter: `/api/v1/atb/:id/traffic`. */
  path: string;
  handler: V1Handler;
}

export function ok(fields: Record<string, unknown>): V1Result {
  return { status: 200, fields };
}

export function created(fields: Record<string, unknown>): V1Result {
  return { status: 201, fields };
}

interface CompiledRoute extends V1Route {
  segments: string[];
}

export interface RouteMatch {
  handler: V1Handler;
  params: Record<string, string>;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // not valid percent-encoding: left as sent, so validation rejects it
  }
}

/**
 * Matches a method and path against the route table: 404 `not_found` when no pattern matches the
 * path, 405 `method_not_allowed` with `Allow` when a pattern matches but not for that method.
 */
export class Router {
  private readonly routes: CompiledRoute[];

  constructor(routes: readonly V1Route[]) {
    this.routes = routes.map((route) => ({ ...route, segments: route.path.split('/') }));
  }

  match(method: string, path: string): RouteMatch {
    const segments = path.split('/');
    const allowed = new Set<string>();
    for (const route of this.routes) {
      const params = matchSegments(route.segments, segments);
      if (!params) continue;
      if (route.method === method) return { handler: route.handler, params };
      allowed.add(route.method);
    }
    if (allowed.size === 0) throw notFound(`No route for ${path}.`);
    throw methodNotAllowed(method, [...allowed].sort());
  }
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const given = actual[i]!;
    if (expected.startsWith(':')) {
      if (given === '') return undefined;
      params[expected.slice(1)] = decodeSegment(given);
    } else if (expected !== given) {
      return undefined;
    }
  }
  return params;
}
