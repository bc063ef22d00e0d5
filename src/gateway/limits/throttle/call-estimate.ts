// An operation's upstream calls, estimated before it runs, for the throttle: each root field is
// one call (a framework create two: the create and the read back; a device lookup a few: its
// search pages through the device list), each `ProtectionDevice.traffic` one per device of the
// page it is under. Identical calls are made once per request, so this is an upper bound; the
// bucket is charged what the operation actually made.
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { getNamedType, GraphQLError, Kind, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { DEFAULT_MAX_PAGE_SIZE, DEFAULT_PAGE_SIZES } from '../../connections/connection.ts';

/** Calls of the root fields that make more than one. */
const ROOT_CALLS: Readonly<Record<string, number>> = { createSecurityFramework: 2, protectionDevice: 3 };
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
    const own = roots.has(type.name) ? (ROOT_CALLS[field.name] ?? 1) : (NESTED_CALLS[`${type.name}.${field.name}`] ?? 0);
    const isConnection = field.args.some((arg) => arg.name === 'first');
    return own + (isConnection ? childComplexity * page(args, getNamedType(field.type).name) : childComplexity);
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

/** Distinct variable values remembered per document (a client paging through sizes, say). */
const MAX_ESTIMATES_PER_DOCUMENT = 64;

/**
 * Estimates remembered per document: walking an operation with its types costs as much as a small
 * request's whole execution, and Apollo hands the same parsed document to every request of the
 * same text. Only page sizes (`first`/`last`, Int) and @include/@skip (Boolean) change an
 * estimate, so the Int and Boolean variables' values name it.
 */
export function callEstimates(schema: GraphQLSchema) {
  const estimator = callEstimator(schema);
  const known = new WeakMap<DocumentNode, Map<string, number>>();
  return (document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown> | undefined): number => {
    const key = estimateKey(operation, variables);
    let byValues = known.get(document);
    const cached = byValues?.get(key);
    if (cached !== undefined) return cached;
    const estimate = estimateCalls(schema, document, operation, variables, estimator);
    if (byValues === undefined) known.set(document, (byValues = new Map()));
    if (byValues.size < MAX_ESTIMATES_PER_DOCUMENT) byValues.set(key, estimate);
    return estimate;
  };
}

function estimateKey(operation: OperationDefinitionNode, variables: Record<string, unknown> | undefined): string {
  const values: unknown[] = [operation.name?.value ?? null];
  for (const definition of operation.variableDefinitions ?? []) {
    const type = definition.type.kind === Kind.NON_NULL_TYPE ? definition.type.type : definition.type;
    if (type.kind === Kind.NAMED_TYPE && (type.name.value === 'Int' || type.name.value === 'Boolean')) values.push(variables?.[definition.variable.name.value] ?? null);
  }
  return JSON.stringify(values);
}
