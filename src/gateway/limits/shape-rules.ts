// Depth, alias and directive limits as GraphQL validation rules (graphql-armor's), so that an
// oversized query is refused while validating, before anything runs.
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { GraphQLError, type ValidationContext, type ValidationRule } from 'graphql';
import { LimitReason, type QueryLimits } from './settings.ts';

/**
 * graphql-armor's own rejection throws out of `validate()` (Apollo would answer 500) and reads
 * "Syntax Error: …". Instead each rule reports a validation error of ours: Apollo answers it 400
 * with `code: GRAPHQL_VALIDATION_FAILED`, and `reason`, `limit` and `found` say which limit.
 */
function reportAs(reason: LimitReason, what: string, limit: number) {
  return (context: ValidationContext | null, error: GraphQLError) => {
    const found = Number(/found (\d+)/.exec(error.message)?.[1]);
    context?.reportError(
      new GraphQLError(`The operation has ${Number.isNaN(found) ? 'too many' : found} ${what}; the limit is ${limit}.`, {
        extensions: { reason, limit, ...(Number.isNaN(found) ? {} : { found }) },
      }),
    );
  };
}

export function queryShapeRules(limits: Pick<QueryLimits, 'maxDepth' | 'maxAliases' | 'maxDirectives'>): ValidationRule[] {
  const common = { exposeLimits: true, propagateOnRejection: false } as const;
  return [
    maxDepthRule({
      ...common,
      n: limits.maxDepth,
      // Depth is field nesting as a reader sees it: a fragment spread adds none. Introspection
      // (`__schema`, about 15 deep) is exempt; it reads the schema, never the upstream.
      flattenFragments: true,
      ignoreIntrospection: true,
      onReject: [reportAs(LimitReason.QUERY_TOO_DEEP, 'levels of nested fields', limits.maxDepth)],
    }),
    maxAliasesRule({
      ...common,
      n: limits.maxAliases,
      onReject: [reportAs(LimitReason.TOO_MANY_ALIASES, 'aliases', limits.maxAliases)],
    }),
    maxDirectivesRule({
      ...common,
      n: limits.maxDirectives,
      onReject: [reportAs(LimitReason.TOO_MANY_DIRECTIVES, 'directives', limits.maxDirectives)],
    }),
  ];
}
