// The cost limit: an estimate of how much an operation asks for, where a connection's children
// count once per item of the page it asks for. Checked once the variables are known (a `first`
// given through a variable counts as much as a literal one), before anything runs. The same walk
// finds a `first`/`last` out of range (page-size.ts), which is refused first.
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import {
  GraphQLError,
  Kind,
  getNamedType,
  getVariableValues,
  type DocumentNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { DEFAULT_MAX_PAGE_SIZE, DEFAULT_PAGE_SIZES } from '../connections/connection.ts';
import { ErrorCode, GatewayError } from '../errors.ts';
import { PageSizeError, pageSizeProblem, type PageSizeProblem } from './page-size.ts';
import { estimateMemo } from './estimate-memo.ts';
import { windowSearchCalls } from './window-estimate.ts';
import { itemsAsked } from './fan-out.ts';

/** A connection's default page; one returned whole counts at the largest page a client may ask for. */
function defaultPage(typeName: string): number {
  const size = (DEFAULT_PAGE_SIZES as Readonly<Record<string, number | 'all'>>)[typeName];
  return typeof size === 'number' ? size : DEFAULT_MAX_PAGE_SIZE;
}

function pageSize(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** An operation's estimate: its cost, and the first `first`/`last` out of range it reaches. */
export interface Estimate {
  cost: number;
  pageSize?: PageSizeProblem;
}

/**
 * Each field costs 1 (and a time window's search) plus its children; a connection field (one taking `first`) costs 1 plus its
 * children times the page asked for, a batch lookup (fan-out.ts) 1 plus its children times the
 * items sent. An out-of-range `first` or `last` counts as asked, and is
 * noted on the estimate being made (graphql-query-complexity's `context`): the operation is
 * refused for it.
 */
export const connectionCostEstimator: ComplexityEstimator = ({ type, field, args, childComplexity, context }) => {
  const isConnection = field.args.some((arg) => arg.name === 'first');
  // A time window's bounds are searched before its page is read (window-estimate.ts).
  const window = windowSearchCalls(args);
  if (!isConnection) return 1 + window + childComplexity * (itemsAsked(field, args) ?? 1);
  const estimate = context as Estimate | undefined;
  if (estimate && !estimate.pageSize) {
    const problem = pageSizeProblem(type, field, args);
    if (problem) estimate.pageSize = problem;
  }
  const typeName = getNamedType(field.type).name;
  const page = pageSize(args['first']) ?? pageSize(args['last']) ?? defaultPage(typeName);
  return 1 + window + childComplexity * page;
};

/**
 * The estimated cost of the operation, or undefined when the variables do not fit their
 * definitions (execution then refuses them with its own BAD_USER_INPUT, before any resolver).
 * A document too large to estimate (graphql-query-complexity stops at 10,000 nodes, which
 * repeated fragment spreads can reach) costs Infinity. Throws BAD_USER_INPUT for a null `if`.
 */
export function estimateCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
): number | undefined {
  return estimateOperation(schema, document, operation, variables)?.cost;
}

/** `estimateCost`, with the page size out of range that the same walk found. */
export function estimateOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
): Estimate | undefined {
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) return undefined;
  return complexity(schema, document, operation, variables, coerced.coerced);
}

function complexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
  coerced: Record<string, unknown>,
): Estimate {
  // Only the operation that runs counts: a document may hold several.
  const single: DocumentNode = {
    ...document,
    definitions: document.definitions.filter((d) => d.kind !== 'OperationDefinition' || d === operation),
  };
  const estimate: Estimate = { cost: 0 };
  try {
    estimate.cost = getComplexity({ schema, query: single, variables: variables ?? {}, estimators: [connectionCostEstimator], context: estimate });
    return estimate;
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    // The estimator evaluates @include and @skip as execution would, so it is the first to meet a
    // null sent as their `if`; otherwise the document was too large to estimate.
    const nullCondition = nullConditionError(document, operation, coerced);
    if (nullCondition) throw nullCondition;
    return { cost: Infinity };
  }
}

/**
 * A null sent (through a nullable variable with a default) as the `if` of an @include or @skip
 * the operation reaches: the client's input is wrong, and the request is refused whole with
 * BAD_USER_INPUT and 400, as a variable of the wrong type is. graphql-js would fail the operation
 * (at its top level) or the field (deeper) with an error that has no code, masked as
 * INTERNAL_SERVER_ERROR.
 */
function nullConditionError(document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown>): GatewayError | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const entered = new Set<string>();
  const search = (selectionSet: SelectionSetNode): string | undefined => {
    for (const selection of selectionSet.selections) {
      for (const directive of selection.directives ?? []) {
        if (directive.name.value !== 'include' && directive.name.value !== 'skip') continue;
        const condition = directive.arguments?.find((argument) => argument.name.value === 'if')?.value;
        if (condition?.kind === Kind.VARIABLE && Object.hasOwn(variables, condition.name.value) && variables[condition.name.value] === null) {
          return directive.name.value;
        }
      }
      let inner: SelectionSetNode | undefined;
      if (selection.kind !== Kind.FRAGMENT_SPREAD) inner = selection.selectionSet;
      else if (!entered.has(selection.name.value)) {
        entered.add(selection.name.value);
        inner = fragments.get(selection.name.value)?.selectionSet;
      }
      const found = inner && search(inner);
      if (found) return found;
    }
    return undefined;
  };
  const directive = search(operation.selectionSet);
  if (directive === undefined) return undefined;
  return new GatewayError(`The "if" of @${directive} must be true or false, not null.`, { code: ErrorCode.BAD_USER_INPUT, http: { status: 400 } });
}

export class QueryTooComplexError extends GatewayError {
  constructor(cost: number, maxCost: number) {
    const shown = Number.isFinite(cost) ? String(cost) : 'too large to estimate';
    super(
      `The operation's estimated cost (${shown}) is over the limit of ${maxCost}: ask for smaller pages (first/last) or fewer nested connections.`,
      {
        code: ErrorCode.QUERY_TOO_COMPLEX,
        ...(Number.isFinite(cost) ? { cost } : {}),
        maxCost,
        http: { status: 400 },
      },
    );
    this.name = 'QueryTooComplexError';
  }
}

/**
 * `estimateOperation`, remembered (estimate-memo.ts). A repeated operation has only its Int and
 * Boolean variables coerced, those its estimate depends on: coercing all of them (a framework
 * edit's input of controls, field by field) would cost more than the estimate it looks up. Execution
 * coerces them all and refuses what does not fit; the executor then tells the cost report that the
 * operation has no estimate (`forget`).
 */
export function costEstimator(): typeof estimateOperation {
  const memo = estimateMemo<Estimate>();
  return (schema, document, operation, variables) => {
    const keyVariables = memo.variables(operation);
    const keyValues = keyVariables.length === 0 ? undefined : getVariableValues(schema, keyVariables, variables ?? {});
    if (keyValues?.errors) return undefined;
    const key = memo.key(operation, keyValues?.coerced);
    const hit = memo.get(operation, key);
    if (hit !== undefined) return hit;
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
    if (coerced.errors) return undefined;
    const estimate = complexity(schema, document, operation, variables, coerced.coerced);
    memo.set(operation, key, estimate);
    return estimate;
  };
}

/** Told each operation's estimate, refused or not (the response's `extensions.cost` shows it). */
export type EstimateListener = (operation: BaseContext, cost: number) => void;

/**
 * Refuses, with HTTP 400, an operation that asks for a page size out of range (BAD_USER_INPUT,
 * whatever its cost) or whose estimated cost is over `maxCost` (QUERY_TOO_COMPLEX).
 */
export function costLimitPlugin<TContext extends BaseContext>(maxCost: number, onEstimate?: EstimateListener): ApolloServerPlugin<TContext> {
  const estimate = costEstimator();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request, contextValue }) {
          // No operation to run (an unknown operationName): execution refuses it on its own.
          if (!operation) return;
          const estimated = estimate(schema, document, operation, request.variables);
          if (estimated === undefined) return;
          onEstimate?.(contextValue, estimated.cost);
          if (estimated.pageSize) throw new PageSizeError(estimated.pageSize);
          if (estimated.cost > maxCost) throw new QueryTooComplexError(estimated.cost, maxCost);
        },
      };
    },
  };
}
