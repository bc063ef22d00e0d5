// A tool's `inputSchema`: the JSON Schema of its operation's variables, read from the schema the
// gateway serves, so that an assistant sees each argument's type, format, allowed values, default
// and description as the SDL states them. GraphQL still checks every value when the operation
// runs (BAD_USER_INPUT): this schema tells the assistant what to send, it is not the gatekeeper.
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  Kind,
  isSpecifiedScalarType,
  TypeInfo,
  typeFromAST,
  valueFromASTUntyped,
  astFromValue,
  visit,
  visitWithTypeInfo,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type DocumentNode,
} from 'graphql';

export type JsonSchema = { [key: string]: unknown };

/** The JSON Schema of the built-in and custom scalars the gateway serves; any other scalar takes any JSON. */
const SCALARS: Record<string, JsonSchema> = {
  Int: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
  Float: { type: 'number' },
  String: { type: 'string' },
  Boolean: { type: 'boolean' },
  // GraphQL takes an ID as a string or an integer and always answers with a string.
  ID: { type: 'string' },
  DateTime: { type: 'string', format: 'date-time' },
  EmailAddress: { type: 'string', format: 'email' },
  IPv4: { type: 'string', format: 'ipv4' },
  URL: { type: 'string', format: 'uri' },
  UUID: { type: 'string', format: 'uuid' },
  JSONObject: { type: 'object' },
};

/** `schema` with `description`; an enum keeps what its own says of its values after it. */
function described(schema: JsonSchema, description: string | null | undefined): JsonSchema {
  const text = description?.trim();
  if (!text) return schema;
  const own = typeof schema.description === 'string' ? schema.description : undefined;
  if (schema.enum && own) return { ...schema, description: own.startsWith(text) ? own : `${text}\n${own}` };
  return { ...schema, description: text };
}

function enumSchema(type: GraphQLEnumType): JsonSchema {
  const values = type.getValues().filter((value) => value.deprecationReason == null);
  // JSON Schema's `enum` has no word per value: the values' descriptions follow the type's own.
  const meanings = values.filter((value) => value.description).map((value) => `${value.name}: ${value.description!.trim()}`);
  const description = [type.description?.trim(), ...meanings].filter(Boolean).join('\n');
  return described({ type: 'string', enum: values.map((value) => value.name) }, description);
}

/** `seen`: the input objects on the way here; one that contains itself is described once, then left open. */
function typeSchema(type: GraphQLInputType, seen: ReadonlySet<string>): JsonSchema {
  if (type instanceof GraphQLNonNull) return typeSchema(type.ofType, seen);
  if (type instanceof GraphQLList) return { type: 'array', items: typeSchema(type.ofType, seen) };
  if (type instanceof GraphQLEnumType) return enumSchema(type);
  if (type instanceof GraphQLScalarType) return described(SCALARS[type.name] ?? {}, isSpecifiedScalarType(type) ? undefined : type.description);
  const input = type as GraphQLInputObjectType;
  if (seen.has(input.name)) return described({ type: 'object' }, input.description);
  const inside = new Set(seen).add(input.name);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of Object.values(input.getFields())) {
    let property = described(typeSchema(field.type, inside), field.description ?? describedType(field.type));
    const fieldDefault = field.defaultValue === undefined ? undefined : (field.astNode?.defaultValue ?? astFromValue(field.defaultValue, field.type));
    if (fieldDefault) property = { ...property, default: valueFromASTUntyped(fieldDefault) };
    properties[field.name] = property;
    if (field.type instanceof GraphQLNonNull && field.defaultValue === undefined) required.push(field.name);
  }
  return described({ type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false }, input.description);
}

/** The description of a variable's or field's own type, when it is this schema's (GraphQL's built-in scalars say nothing useful here). */
function describedType(type: GraphQLInputType): string | undefined {
  let named: GraphQLInputType = type;
  while (named instanceof GraphQLNonNull || named instanceof GraphQLList) named = named.ofType;
  if (named instanceof GraphQLScalarType && isSpecifiedScalarType(named)) return undefined;
  return named.description ?? undefined;
}

/**
 * Where each variable is used: the description of the argument or input field it is passed to,
 * the first one that has a description. A variable has no SDL of its own; what it feeds has.
 */
function variableDescriptions(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Map<string, string> {
  const found = new Map<string, string>();
  const typeInfo = new TypeInfo(schema);
  const ancestryKinds: string[] = [];
  // The names of the object fields around the node being visited.
  const objectFields: string[] = [];
  const only: DocumentNode = { ...document, definitions: document.definitions.filter((definition) => definition.kind !== Kind.OPERATION_DEFINITION || definition === operation) };
  visit(
    only,
    visitWithTypeInfo(typeInfo, {
      enter(node) {
        ancestryKinds.push(node.kind);
        if (node.kind === Kind.OBJECT_FIELD) objectFields.push(node.name.value);
        if (node.kind !== Kind.VARIABLE || found.has(node.name.value)) return;
        const parent = ancestryKinds[ancestryKinds.length - 2];
        let description: string | null | undefined;
        if (parent === Kind.ARGUMENT) description = typeInfo.getArgument()?.description;
        if (parent === Kind.OBJECT_FIELD) {
          let holder = typeInfo.getParentInputType();
          while (holder instanceof GraphQLNonNull || holder instanceof GraphQLList) holder = holder.ofType;
          const fieldName = objectFields.at(-1);
          if (holder instanceof GraphQLInputObjectType && fieldName) description = holder.getFields()[fieldName]?.description;
        }
        if (description) found.set(node.name.value, description.trim());
      },
      leave(node) {
        ancestryKinds.pop();
        if (node.kind === Kind.OBJECT_FIELD) objectFields.pop();
      },
    }),
  );
  return found;
}

/** The JSON Schema of `operation`'s variables (an object schema; no variables: no properties). */
export function variablesSchema(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): JsonSchema {
  const descriptions = variableDescriptions(schema, document, operation);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    // The operation was validated against the schema: every variable's type exists and is an input type.
    const type = typeFromAST(schema, definition.type as never) as GraphQLInputType;
    let property = described(typeSchema(type, new Set()), descriptions.get(name) ?? describedType(type));
    // As the client writes it (an enum by its name), not as resolvers receive it.
    if (definition.defaultValue) property = { ...property, default: valueFromASTUntyped(definition.defaultValue) };
    properties[name] = property;
    if (type instanceof GraphQLNonNull && !definition.defaultValue) required.push(name);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}
