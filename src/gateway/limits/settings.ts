// The query limits of the gateway: what they are called, their defaults and bounds, and the codes
// a rejected request carries. config.ts reads them from the environment; the other files of this
// folder apply them.

export interface QueryLimits {
  /** Deepest field nesting of an operation (fragments add no depth; `__schema` is exempt). */
  maxDepth: number;
  /** Aliased fields in one operation (`__typename` aliases are free). */
  maxAliases: number;
  /** Directive uses in one operation. */
  maxDirectives: number;
  /** Lexical tokens in one document: the parser stops reading past it. */
  maxTokens: number;
  /** Estimated cost of one operation, with page sizes taken from `first`/`last` or the defaults. */
  maxCost: number;
  /** Upstream calls one HTTP request may make; the calls past it fail field by field. */
  maxUpstreamCalls: number;
  /** Operations in one batched HTTP request; 0 refuses batches. */
  maxBatchSize: number;
}

/**
 * The getIntrospectionQuery() that Sandbox and codegen send nests fields 15 deep; it passes
 * because `__schema` is exempt from the depth limit, not because the limit is high. The deepest
 * selection the schema's types lead to (devices → edges → node → traffic → edges → node → id)
 * is 7, so 12 leaves room and still stops a query that nests for nesting's sake.
 *
 * The cost estimates the size of the answer, not the upstream calls behind it: aliases of a
 * small nested page (`traffic(first: 1)`) stay cheap while each costs a call per device. So the
 * call budget is a limit of its own, set to admit the largest plain shape a dashboard asks for
 * (100 devices with one traffic page each: 101 calls) and not an alias fan-out of it.
 *
 * A client's ordinary "every field of an organization's frameworks" (no `first`: counted as a
 * page of 100, edges and nodes) costs about 5,000; 20,000 admits it with room while a nested
 * `devices(first: 100) { traffic(first: 100) }` (over 100,000) is still refused.
 */
export const DEFAULT_LIMITS: QueryLimits = {
  maxDepth: 12,
  maxAliases: 30,
  maxDirectives: 50,
  maxTokens: 5_000,
  maxCost: 20_000,
  maxUpstreamCalls: 150,
  maxBatchSize: 0,
};

/** Each limit's setting name and accepted range, for config.ts. */
export const LIMIT_SETTINGS: Record<keyof QueryLimits, { env: string; min: number; max: number }> = {
  maxDepth: { env: 'MAX_DEPTH', min: 1, max: 100 },
  maxAliases: { env: 'MAX_ALIASES', min: 0, max: 10_000 },
  maxDirectives: { env: 'MAX_DIRECTIVES', min: 0, max: 10_000 },
  // Below a few hundred tokens Sandbox's own introspection query would no longer parse.
  maxTokens: { env: 'MAX_TOKENS', min: 500, max: 1_000_000 },
  maxCost: { env: 'MAX_COST', min: 1, max: 100_000_000 },
  maxUpstreamCalls: { env: 'MAX_UPSTREAM_CALLS', min: 1, max: 100_000 },
  maxBatchSize: { env: 'MAX_BATCH_SIZE', min: 0, max: 1_000 },
};

/**
 * Depth, aliases and directives are validation errors: Apollo gives every validation error the
 * code `GRAPHQL_VALIDATION_FAILED`, so those carry which limit in `extensions.reason`. Too many
 * tokens is the parser's `GRAPHQL_PARSE_FAILED`. Cost and call budget have codes of their own
 * (`QUERY_TOO_COMPLEX`, `UPSTREAM_BUDGET_EXCEEDED`), in errors.ts with every other code.
 */
/** `extensions.reason` of a GRAPHQL_VALIDATION_FAILED error that a limit caused. */
export const LimitReason = {
  QUERY_TOO_DEEP: 'QUERY_TOO_DEEP',
  TOO_MANY_ALIASES: 'TOO_MANY_ALIASES',
  TOO_MANY_DIRECTIVES: 'TOO_MANY_DIRECTIVES',
} as const;
export type LimitReason = (typeof LimitReason)[keyof typeof LimitReason];
