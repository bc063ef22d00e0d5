// What a subscription document must pass before it runs over WebSocket: the same parse limits,
// validation rules and cost limit as a document over HTTP (Apollo applies those there; graphql-ws
// does not know them), and only subscriptions: queries and mutations go over HTTP, where the
// gateway's plugins (logging, cost extension) see them.
import { getOperationAST, getVariableValues, GraphQLError, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, type ParseOptions, type ValidationRule } from 'graphql';
import { estimateCost, QueryTooComplexError } from '../limits/cost.ts';

export interface OperationRules {
  schema: GraphQLSchema;
  parseOptions: ParseOptions;
  validationRules: readonly ValidationRule[];
  maxCost: number;
}

export interface SubscribeRequest {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

export type Checked = { document: DocumentNode; operation: OperationDefinitionNode } | { errors: GraphQLError[] };

function withCode(error: GraphQLError, code: string): GraphQLError {
  return error.extensions.code ? error : new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { ...error.extensions, code } });
}

export function checkSubscription(rules: OperationRules, request: SubscribeRequest): Checked {
  let document: DocumentNode;
  try {
    document = parse(request.query, rules.parseOptions);
  } catch (error) {
    if (error instanceof GraphQLError) return { errors: [withCode(error, 'GRAPHQL_PARSE_FAILED')] };
    throw error;
  }
  const operation = getOperationAST(document, request.operationName ?? undefined);
  if (!operation) {
    const message = request.operationName ? `Unknown operation named "${request.operationName.slice(0, 100)}".` : 'The document must name the operation to run: it holds several (operationName).';
    return { errors: [new GraphQLError(message, { extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } })] };
  }
  if (operation.operation !== 'subscription') {
    const message = `Over WebSocket this gateway runs subscriptions only; send ${operation.operation === 'query' ? 'queries' : 'mutations'} over HTTP (POST, or GET for queries) to the same path.`;
    return { errors: [new GraphQLError(message, { extensions: { code: 'OPERATION_NOT_SUPPORTED' } })] };
  }
  const errors = validate(rules.schema, document, [...specifiedRules, ...rules.validationRules]);
  if (errors.length > 0) return { errors: errors.map((error) => withCode(error, 'GRAPHQL_VALIDATION_FAILED')) };
  // Variables missing or of the wrong type are the client's mistake, as over HTTP: BAD_USER_INPUT.
  const coerced = getVariableValues(rules.schema, operation.variableDefinitions ?? [], request.variables ?? {}, { maxErrors: 10 });
  if (coerced.errors) return { errors: coerced.errors.map((error) => withCode(error, 'BAD_USER_INPUT')) };
  try {
    const cost = estimateCost(rules.schema, document, operation, request.variables ?? undefined);
    if (cost !== undefined && cost > rules.maxCost) return { errors: [new QueryTooComplexError(cost, rules.maxCost)] };
  } catch (error) {
    if (error instanceof GraphQLError) return { errors: [error] };
    throw error;
  }
  return { document, operation };
}
