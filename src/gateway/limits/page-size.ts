// `first`/`last` outside 1–100, found while the cost is estimated: the walk meets every connection
// the operation reaches (fragments expanded, @include/@skip applied) with its arguments resolved,
// variables included. Refusing there, before anything runs, gives a page size that is out of range
// its own BAD_USER_INPUT even when the cost limit would refuse the operation too: the more
// specific error wins (graphql.md, "Connections").
import type { GraphQLCompositeType, GraphQLField } from 'graphql';
import { DEFAULT_MAX_PAGE_SIZE } from '../connections/connection.ts';
import { ErrorCode, GatewayError } from '../errors.ts';

const PAGE_SIZE_ARGUMENTS = ['first', 'last'] as const;

/** A `first` or `last` out of range, and the field it was given to (`ProtectionDevice.traffic`). */
export interface PageSizeProblem {
  argument: string;
  value: number;
  coordinate: string;
}

/** The connection field's page size out of range; undefined when it is in range. */
export function pageSizeProblem(parent: GraphQLCompositeType, field: GraphQLField<unknown, unknown>, args: Record<string, unknown>): PageSizeProblem | undefined {
  for (const argument of PAGE_SIZE_ARGUMENTS) {
    const value = args[argument];
    if (typeof value !== 'number') continue;
    if (!Number.isInteger(value) || value < 1 || value > DEFAULT_MAX_PAGE_SIZE) {
      return { argument, value, coordinate: `${parent.name}.${field.name}` };
    }
  }
  return undefined;
}

/**
 * The operation is refused whole, with HTTP 400, as Apollo refuses a variable of the wrong type
 * and the cost limit an operation too large: no field runs, so there is no path, and `field`
 * names the argument.
 */
export class PageSizeError extends GatewayError {
  constructor({ argument, value, coordinate }: PageSizeProblem) {
    super(`${argument} must be between 1 and ${DEFAULT_MAX_PAGE_SIZE}, got ${value} (${coordinate}).`, {
      code: ErrorCode.BAD_USER_INPUT,
      field: argument,
      http: { status: 400 },
    });
    this.name = 'PageSizeError';
  }
}
