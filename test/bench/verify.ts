// Before a shape is measured: one request to each target, checked to be a success, the gateway's
// `data` compared with the pass-through's JSON, and the v1 calls each made compared one by one.
import { isDeepStrictEqual } from 'node:util';
import type { Verification } from './results.ts';

/** The path to the first place where `a` and `b` differ, with both values there. */
export function firstDifference(a: unknown, b: unknown, path = 'data'): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) return `${path}: ${a.length} items vs ${b.length}`;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const inner = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`);
      if (inner) return inner;
    }
  }
  const show = (value: unknown) => (value === undefined ? 'absent' : JSON.stringify(value)?.slice(0, 120));
  return `${path}: gateway ${show(a)}, pass-through ${show(b)}`;
}

/** A call as a comparable string: method, path and the query parameters in name order. */
export function canonicalCall(call: string): string {
  const [method, url = ''] = call.split(' ');
  const parsed = new URL(url, 'http://v1');
  const params = [...parsed.searchParams].sort(([a, x], [b, y]) => a.localeCompare(b) || x.localeCompare(y));
  const query = new URLSearchParams(params).toString();
  return `${method} ${parsed.pathname}${query ? `?${query}` : ''}`;
}

function counts(calls: string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const call of calls.map(canonicalCall)) map.set(call, (map.get(call) ?? 0) + 1);
  return map;
}

export function compareCalls(
  calls: Verification['calls'],
): Pick<Verification, 'sameCalls' | 'extraCalls' | 'missingCalls' | 'duplicateCalls'> {
  const gateway = counts(calls.gateway);
  const passthrough = counts(calls.passthrough);
  const extraCalls = [...gateway.keys()].filter((call) => !passthrough.has(call));
  const missingCalls = [...passthrough.keys()].filter((call) => !gateway.has(call));
  const duplicateCalls = [...gateway]
    .filter(([call, n]) => n > 1 && n > (passthrough.get(call) ?? 0))
    .map(([call, n]) => `${call} (${n} times)`);
  const sameCalls = gateway.size === passthrough.size && [...gateway].every(([call, n]) => passthrough.get(call) === n);
  return { sameCalls, extraCalls, missingCalls, duplicateCalls };
}
