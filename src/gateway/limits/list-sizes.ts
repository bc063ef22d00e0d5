// The longest list a client may send in each list input, checked before anything runs. Without a
// bound, one request of a megabyte carries hundreds of thousands of items that the gateway would
// forward (and the upstream answer item by item); with one, it is refused with a clear
// BAD_USER_INPUT naming the input, whether the list is written in the document or sent in variables.
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import {
  GraphQLError,
  Kind,
  TypeInfo,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  typeFromAST,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';

/** Input field → most items. Controls: v1's own limit (rest-v1.md); filters and services: generous. */
export const LIST_LIMITS: Readonly<Record<string, number>> = {
  'SecurityFrameworkInput.controls': 500,
  'WebProtectionRecordInput.services': 64,
  'ProtectionDeviceFilter.services': 64,
  'TrafficLogFilter.actions': 64,
};

function tooLong(coordinate: string, length: number): GraphQLError {
  const limit = LIST_LIMITS[coordinate]!;
  return new GraphQLError(`${coordinate} holds ${length} items; at most ${limit} are allowed.`, {
    extensions: { code: 'BAD_USER_INPUT', field: coordinate, http: { status: 400 } },
  });
}

/** The fields of an input object type worth walking: limited lists, or fields that can hold one. */
interface FieldPlan {
  name: string;
  coordinate: string;
  /** The field's own limit, when it is a limited list. */
  limit: number | undefined;
  type: GraphQLInputType;
  /** Whether its items or fields can hold a limited list (only then is its value walked). */
  walk: boolean;
}

/**
 * Per input object type, what checkValue walks, worked out once: a control's JSON `details` or
 * its other scalars are never walked, so a framework edit's input costs a length check.
 */
const plans = new WeakMap<GraphQLInputObjectType, FieldPlan[]>();

function planOf(type: GraphQLInputObjectType): FieldPlan[] {
  let plan = plans.get(type);
  if (plan === undefined) {
    plan = Object.values(type.getFields()).flatMap((field) => {
      const coordinate = `${type.name}.${field.name}`;
      const limit = LIST_LIMITS[coordinate];
      const walk = canHoldLimitedList(field.type);
      return limit !== undefined || walk ? [{ name: field.name, coordinate, limit, type: field.type, walk }] : [];
    });
    plans.set(type, plan);
  }
  return plan;
}

/** A variable's value, walked along its input type: the first list over its limit. */
function checkValue(type: GraphQLInputType, value: unknown): GraphQLError | undefined {
  if (value === null || value === undefined) return undefined;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    if (!Array.isArray(value)) return undefined;
    for (const item of value) {
      const error = checkValue(inner.ofType, item);
      if (error) return error;
    }
    return undefined;
  }
  if (!isInputObjectType(inner) || typeof value !== 'object') return undefined;
  for (const field of planOf(inner)) {
    const fieldValue = (value as Record<string, unknown>)[field.name];
    if (field.limit !== undefined && Array.isArray(fieldValue) && fieldValue.length > field.limit) return tooLong(field.coordinate, fieldValue.length);
    if (field.walk) {
      const error = checkValue(field.type, fieldValue);
      if (error) return error;
    }
  }
  return undefined;
}

/** Whether a value of this input type can hold a list that has a limit. */
function canHoldLimitedList(type: GraphQLInputType, seen = new Set<string>()): boolean {
  const named = getNamedType(type);
  if (!isInputObjectType(named) || seen.has(named.name)) return false;
  seen.add(named.name);
  return Object.values(named.getFields()).some((field) => LIST_LIMITS[`${named.name}.${field.name}`] !== undefined || canHoldLimitedList(field.type, seen));
}

/** What a document's check needs on every request, worked out once per document. */
interface DocumentCheck {
  /** A list over its limit written in the document itself. */
  literal: GraphQLError | undefined;
  /** The operation's variables whose values can hold a limited list, with their types. */
  variables: { name: string; type: GraphQLInputType }[];
  /** Variables given as a limited list itself (`filter: { actions: $actions }`), with its input. */
  listVariables: { name: string; coordinate: string }[];
}

function documentCheck(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): DocumentCheck {
  let literal: GraphQLError | undefined;
  const listVariables: DocumentCheck['listVariables'] = [];
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      ObjectField(node) {
        const parent = typeInfo.getParentInputType();
        if (!parent) return;
        const coordinate = `${getNamedType(parent).name}.${node.name.value}`;
        const limit = LIST_LIMITS[coordinate];
        if (limit === undefined) return;
        if (node.value.kind === Kind.VARIABLE) listVariables.push({ name: node.value.name.value, coordinate });
        else if (!literal && node.value.kind === Kind.LIST && node.value.values.length > limit) literal = tooLong(coordinate, node.value.values.length);
      },
    }),
  );
  const variables = (operation.variableDefinitions ?? []).flatMap((definition) => {
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    return type && canHoldLimitedList(type) ? [{ name: definition.variable.name.value, type }] : [];
  });
  return { literal, variables, listVariables };
}

/**
 * The first list over its limit in the operation's literals or its variables. The document's
 * part is worked out once per operation (Apollo hands out the same parsed document for the same
 * text), so a request pays only for its variables that can hold such a list.
 */
export function listSizeChecker(): (
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
) => GraphQLError | undefined {
  const checks = new WeakMap<OperationDefinitionNode, DocumentCheck>();
  return (schema, document, operation, variables) => {
    let check = checks.get(operation);
    if (check === undefined) {
      check = documentCheck(schema, document, operation);
      checks.set(operation, check);
    }
    if (check.literal) return check.literal;
    for (const { name, coordinate } of check.listVariables) {
      const value = variables?.[name];
      if (Array.isArray(value) && value.length > LIST_LIMITS[coordinate]!) return tooLong(coordinate, value.length);
    }
    for (const { name, type } of check.variables) {
      const error = checkValue(type, variables?.[name]);
      if (error) return error;
    }
    return undefined;
  };
}

/** Refuses, with HTTP 400 and BAD_USER_INPUT, an operation that sends a list over its limit. */
export function listSizePlugin<TContext extends BaseContext>(): ApolloServerPlugin<TContext> {
  const listTooLong = listSizeChecker();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          if (!operation) return;
          const error = listTooLong(schema, document, operation, request.variables);
          if (error) throw error;
        },
      };
    },
  };
}
