// An operation's upstream calls, estimated before it runs, for the throttle: each root field is
// one call (a framework create two: the create and the read back; a device lookup a few: its
// search pages through the device list), each `ProtectionDevice.traffic` one per device of the
// page it is under, a time window the search of its bounds, and a batch lookup (a subgraph's
// `_entities`) what one lookup costs, once per item sent. Identical calls are made once per
// request, so this is an upper bound; the bucket is charged what the operation actually made.
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { getNamedType, GraphQLError, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { DEFAULT_MAX_PAGE_SIZE, DEFAULT_PAGE_SIZES } from '../connections/connection.ts';
import { estimateMemo } from '../limits/estimate-memo.ts';
import { windowSearchCalls } from '../limits/window-estimate.ts';
import { itemsAsked } from '../limits/fan-out.ts';

/**
 * Calls of the root fields that make more than one. `_entities`: per representation, as a device
 * lookup (a framework's costs one per organization, so less).
 */
const ROOT_CALLS: Readonly<Record<string, number>> = { createSecurityFramework: 2, protectionDevice: 3, webProtectionRecord: 2, _entities: 3 };
/** The one nested field with an upstream call of its own. */
const NESTED_CALLS: Readonly<Record<string, number>> = { 'ProtectionDevice.traffic': 1 };

function page(args: Record<string, unknown>, typeName: string): number {
  for (const value of [args['first'], args['last']]) if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  const size = (DEFAULT_PAGE_SIZES as Readonly<Record<string, number | 'all'>>)[typeName];
  return typeof size === 'number' ? size : DEFAULT_MAX_PAGE_SIZE;
}

export function callEstimator(schema: GraphQLSchema): ComplexityEstimator {
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(Boolean).map((type) => type!.name));
  return ({ type, field, args, childComplexity }) => {
    const own = (roots.has(type.name) ? (ROOT_CALLS[field.name] ?? 1) : (NESTED_CALLS[`${type.name}.${field.name}`] ?? 0)) + windowSearchCalls(args);
    const isConnection = field.args.some((arg) => arg.name === 'first');
    if (isConnection) return own + childComplexity * page(args, getNamedType(field.type).name);
    const items = itemsAsked(field, args);
    return items === undefined ? own + childComplexity : (own + childComplexity) * items;
  };
}

/** The estimate, or Infinity for a document too large to estimate. */
export function estimateCalls(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown> | undefined, estimator = callEstimator(schema)): number {
  const single: DocumentNode = { ...document, definitions: document.definitions.filter((d) => d.kind !== 'OperationDefinition' || d === operation) };
  try {
    return getComplexity({ schema, query: single, variables: variables ?? {}, estimators: [estimator] });
  } catch (error) {
    if (error instanceof GraphQLError) return Infinity;
    throw error;
  }
}

/** `estimateCalls`, remembered per operation and values of its Int and Boolean variables (estimate-memo.ts). */
export function callEstimates(schema: GraphQLSchema) {
  const estimator = callEstimator(schema);
  const memo = estimateMemo<number>();
  return (document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown> | undefined): number => {
    const key = memo.key(operation, variables);
    const cached = memo.get(operation, key);
    if (cached !== undefined) return cached;
    const estimate = estimateCalls(schema, document, operation, variables, estimator);
    memo.set(operation, key, estimate);
    return estimate;
  };
}
