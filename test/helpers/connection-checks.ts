// Checks shared by the gateway suites that page through Relay connections.
import { expect } from 'vitest';
import type { GraphQLResponse } from './gateway.ts';

export interface IdPage {
  edges: { cursor: string; node: { id: string } }[];
  nodes: { id: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor?: string | null; endCursor?: string | null };
  totalCount: number;
}

export type PageArgs = { first?: number; after?: string; last?: number; before?: string };

export function expectNoErrors<T>(response: GraphQLResponse<T>): T {
  expect(response.errors).toBeUndefined();
  expect(response.status).toBe(200);
  return response.data as T;
}

export function expectOneError(response: GraphQLResponse<unknown>, code: string, path: (string | number)[]) {
  expect(response.status).toBe(200);
  expect(response.errors?.map((e) => ({ code: e.extensions?.code, path: e.path }))).toEqual([{ code, path }]);
}

/**
 * A `first`/`last` out of 1–100 refused before execution: HTTP 400, no `data`, one BAD_USER_INPUT
 * naming the argument (and the value and field in its message).
 */
export function expectPageSizeRefused(response: GraphQLResponse<unknown>, argument: 'first' | 'last', value: number, coordinate: string) {
  expect(response.status, response.text).toBe(400);
  expect(response.data).toBeUndefined();
  expect(response.errors).toEqual([
    { message: `${argument} must be between 1 and 100, got ${value} (${coordinate}).`, extensions: { code: 'BAD_USER_INPUT', field: argument } },
  ]);
}

/** A page's edges and nodes agree, and its cursors are where page info says. */
export function checkPageShape(page: IdPage, label: string) {
  expect(page.nodes.map((n) => n.id), label).toEqual(page.edges.map((e) => e.node.id));
  expect(page.pageInfo.startCursor, label).toBe(page.edges[0]?.cursor ?? null);
  expect(page.pageInfo.endCursor, label).toBe(page.edges.at(-1)?.cursor ?? null);
}

/**
 * Pages through the whole list forward (`first`/`after`) and backward (`last`/`before`), checking
 * every page against the slice of `expected` it must be, with exact page info, no duplicate and
 * no gap.
 */
export async function walkBothWays(ask: (args: PageArgs) => Promise<IdPage>, expected: string[], size: number, label: string) {
  const total = expected.length;
  const maxSteps = Math.ceil(total / size) + 1;

  const forward: string[] = [];
  let after: string | undefined;
  for (let start = 0, step = 0; ; step++) {
    expect(step, `${label}: forward walk does not end`).toBeLessThanOrEqual(maxSteps);
    const page = await ask({ first: size, ...(after === undefined ? {} : { after }) });
    const where = `${label} forward from ${start}`;
    checkPageShape(page, where);
    const slice = expected.slice(start, start + size);
    expect(page.nodes.map((n) => n.id), where).toEqual(slice);
    expect(page.totalCount, where).toBe(total);
    expect(page.pageInfo.hasPreviousPage, where).toBe(start > 0);
    expect(page.pageInfo.hasNextPage, where).toBe(start + slice.length < total);
    forward.push(...page.nodes.map((n) => n.id));
    if (!page.pageInfo.hasNextPage) break;
    after = page.pageInfo.endCursor!;
    start += slice.length;
  }
  expect(forward, label).toEqual(expected);
  expect(new Set(forward).size, label).toBe(total);

  const backward: string[] = [];
  let before: string | undefined;
  for (let end = total, step = 0; ; step++) {
    expect(step, `${label}: backward walk does not end`).toBeLessThanOrEqual(maxSteps);
    const page = await ask({ last: size, ...(before === undefined ? {} : { before }) });
    const where = `${label} backward to ${end}`;
    checkPageShape(page, where);
    const start = Math.max(0, end - size);
    expect(page.nodes.map((n) => n.id), where).toEqual(expected.slice(start, end));
    expect(page.totalCount, where).toBe(total);
    expect(page.pageInfo.hasPreviousPage, where).toBe(start > 0);
    expect(page.pageInfo.hasNextPage, where).toBe(end < total);
    backward.unshift(...page.nodes.map((n) => n.id));
    if (!page.pageInfo.hasPreviousPage) break;
    before = page.pageInfo.startCursor!;
    end = start;
  }
  expect(backward, label).toEqual(expected);
}
