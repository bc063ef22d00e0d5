// The gateway's SDL (sdl.ts) as a schema, and the resolvers of its custom scalars.
import { buildASTSchema, concatAST, GraphQLError, GraphQLScalarType, Kind, type DocumentNode, type ValueNode } from 'graphql';
import {
  DateTimeResolver,
  EmailAddressResolver,
  IPv4Resolver,
  JSONObjectResolver,
  URLResolver,
  UUIDResolver,
} from 'graphql-scalars';
import { ErrorCode, gatewayError } from './errors.ts';
import type { Resolvers } from './generated/resolvers.ts';
import { sdlDocuments } from './sdl.ts';

/** One document per SDL file. */
export const typeDefs: DocumentNode[] = sdlDocuments;

/** The SDL's schema: built and checked once, then given its resolvers in place (domains/index.ts). */
export const declared = buildASTSchema(concatAST(typeDefs));

const BAD_UPSTREAM_SCALAR = /^The upstream sent a value that is not a valid [_A-Za-z][_0-9A-Za-z]*\.$/;

/** A value from upstream that its scalar cannot represent: the field's UPSTREAM_BAD_RESPONSE. */
function badUpstreamScalar(scalarName: string): GraphQLError {
  return gatewayError(ErrorCode.UPSTREAM_BAD_RESPONSE, `The upstream sent a value that is not a valid ${scalarName}.`);
}

/**
 * The error `badUpstreamScalar` made, from its message alone: graphql-jit keeps only the message
 * of an error thrown by a scalar's `serialize`.
 */
export function badUpstreamScalarFromMessage(message: string): GraphQLError | undefined {
  return BAD_UPSTREAM_SCALAR.test(message) ? gatewayError(ErrorCode.UPSTREAM_BAD_RESPONSE, message) : undefined;
}

/**
 * graphql-scalars' coercion, with the description and `@specifiedBy` URL the SDL gives. A
 * resolver's own `description` and `specifiedByURL` would otherwise replace the SDL's in the
 * executable schema, and Sandbox would show graphql-scalars' generic words instead of ours.
 */
function documentedBySdl(scalar: GraphQLScalarType, checkInput: (value: unknown) => void = () => {}): GraphQLScalarType {
  const sdl = declared.getType(scalar.name);
  if (!(sdl instanceof GraphQLScalarType)) throw new Error(`scalar ${scalar.name} is not declared in schema/*.graphql`);
  const config = scalar.toConfig();
  return new GraphQLScalarType({
    ...config,
    // A value the upstream sent that is not of the scalar's format breaks the v1 contract: the
    // field is null with UPSTREAM_BAD_RESPONSE, not a masked gateway bug.
    serialize(value) {
      try {
        return config.serialize(value);
      } catch {
        throw badUpstreamScalar(scalar.name);
      }
    },
    parseValue(value) {
      const parsed = config.parseValue(value);
      checkInput(value);
      return parsed;
    },
    parseLiteral(ast, variables) {
      const parsed = config.parseLiteral(ast, variables);
      if (ast.kind === Kind.STRING) checkInput(ast.value);
      return parsed;
    },
    description: sdl.description,
    specifiedByURL: sdl.specifiedByURL,
    // No astNode: the schema's type keeps its own, given resolvers in place (a second one would
    // be merged into it, repeating its directives).
  });
}

/** DateTime values remembered as they were last serialized (upstream date strings recur a lot). */
const MAX_REMEMBERED_DATES = 2_000;

/**
 * DateTime answering the ISO string its JSON is, not a Date: JSON.stringify turns a Date into that
 * same string later, at many times the cost, and every check graphql-scalars makes is still made.
 * The same upstream strings recur (a page's devices share their days), so each distinct string is
 * checked and converted once while it stays among the remembered ones.
 */
function serializingToIsoStrings(scalar: GraphQLScalarType): GraphQLScalarType {
  const config = scalar.toConfig();
  const remembered = new Map<string, unknown>();
  const serialize = (value: unknown): unknown => {
    const result = config.serialize(value);
    return result instanceof Date ? result.toISOString() : result;
  };
  return new GraphQLScalarType({
    ...config,
    serialize(value) {
      if (typeof value !== 'string') return serialize(value);
      let result = remembered.get(value);
      if (result === undefined) {
        result = serialize(value);
        if (remembered.size >= MAX_REMEMBERED_DATES) remembered.clear();
        if (value.length <= 64) remembered.set(value, result);
      }
      return result;
    },
  });
}

const DOTTED_QUAD = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** graphql-scalars' IPv4 also takes a CIDR suffix and leading zeros; v1 wants a plain dotted quad. */
function requireDottedQuad(value: unknown): void {
  if (typeof value !== 'string' || !DOTTED_QUAD.test(value)) {
    throw new GraphQLError(`Value is not a dotted-quad IPv4 address: ${String(value).slice(0, 50)}`);
  }
}

/** Deepest nesting of a JSON input (a control's `details`): deeper is refused before any work. */
export const MAX_JSON_DEPTH = 64;

function jsonDepth(value: unknown, limit: number): number {
  if (value === null || typeof value !== 'object') return 0;
  if (limit <= 0) return 1;
  let deepest = 0;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    deepest = Math.max(deepest, jsonDepth(item, limit - 1));
    if (deepest >= limit) break;
  }
  return deepest + 1;
}

function literalDepth(node: ValueNode, limit: number): number {
  if (limit <= 0) return 1;
  const children = node.kind === Kind.OBJECT ? node.fields.map((field) => field.value) : node.kind === Kind.LIST ? node.values : [];
  if (children.length === 0) return node.kind === Kind.OBJECT || node.kind === Kind.LIST ? 1 : 0;
  let deepest = 0;
  for (const child of children) {
    deepest = Math.max(deepest, literalDepth(child, limit - 1));
    if (deepest >= limit) break;
  }
  return deepest + 1;
}

/**
 * A JSON scalar that refuses nesting deeper than MAX_JSON_DEPTH before it reads the value any
 * further: every later step (coercion, the upstream body's JSON.stringify) recurses, and a client
 * could nest thousands of levels into a stack overflow.
 */
function depthLimited(scalar: GraphQLScalarType): GraphQLScalarType {
  const config = scalar.toConfig();
  const tooDeep = () => new GraphQLError(`${scalar.name} values may be nested at most ${MAX_JSON_DEPTH} levels deep.`);
  return new GraphQLScalarType({
    ...config,
    parseValue(value) {
      if (jsonDepth(value, MAX_JSON_DEPTH + 1) > MAX_JSON_DEPTH) throw tooDeep();
      return config.parseValue(value);
    },
    parseLiteral(ast, variables) {
      if (literalDepth(ast, MAX_JSON_DEPTH + 1) > MAX_JSON_DEPTH) throw tooDeep();
      return config.parseLiteral(ast, variables);
    },
  });
}

export const scalarResolvers = {
  DateTime: serializingToIsoStrings(documentedBySdl(DateTimeResolver)),
  EmailAddress: documentedBySdl(EmailAddressResolver),
  IPv4: documentedBySdl(IPv4Resolver, requireDottedQuad),
  UUID: documentedBySdl(UUIDResolver),
  URL: documentedBySdl(URLResolver),
  JSONObject: depthLimited(documentedBySdl(JSONObjectResolver)),
} satisfies Resolvers;
