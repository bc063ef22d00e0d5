// The query limits as Apollo Server options: what server.ts spreads into `new ApolloServer(...)`.
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import type { GraphQLFormattedError, ParseOptions, ValidationRule } from 'graphql';
import { costLimitPlugin, type EstimateListener } from './cost.ts';
import { listSizePlugin } from './list-sizes.ts';
import type { QueryLimits } from './settings.ts';
import { queryShapeRules } from './shape-rules.ts';

export interface LimitOptions<TContext extends BaseContext> {
  validationRules: ValidationRule[];
  parseOptions: ParseOptions;
  allowBatchedHttpRequests: boolean;
  plugins: ApolloServerPlugin<TContext>[];
}

export function limitOptions<TContext extends BaseContext>(limits: QueryLimits, onEstimate?: EstimateListener): LimitOptions<TContext> {
  return {
    validationRules: queryShapeRules(limits),
    // graphql-js counts tokens while parsing and stops at the limit: an enormous document is
    // never fully read. Apollo answers 400 GRAPHQL_PARSE_FAILED.
    parseOptions: { maxTokens: limits.maxTokens },
    // Apollo refuses batches with 400 when this is false; when true, server.ts bounds their size
    // (batchTooLarge), since Apollo has no bound of its own.
    allowBatchedHttpRequests: limits.maxBatchSize > 0,
    plugins: [listSizePlugin<TContext>(), costLimitPlugin<TContext>(limits.maxCost, onEstimate)],
  };
}

/**
 * The answer to a batched request over the size limit, or undefined when the body may go on to
 * Apollo (not a batch, batching off — Apollo refuses it itself — or within the limit).
 */
export function batchTooLarge(body: unknown, maxBatchSize: number): { errors: GraphQLFormattedError[] } | undefined {
  if (!Array.isArray(body) || maxBatchSize <= 0 || body.length <= maxBatchSize) return undefined;
  return {
    errors: [
      {
        message: `A batched request may hold at most ${maxBatchSize} operations; this one holds ${body.length}.`,
        extensions: { code: 'BAD_REQUEST', reason: 'BATCH_TOO_LARGE', limit: maxBatchSize },
      },
    ],
  };
}

