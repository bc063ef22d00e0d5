// The gateway's SDL, read once at start-up from schema/*.graphql (the same files, in the same
// order, as codegen.yml's `schema` glob), and the resolvers of its custom scalars.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildASTSchema, concatAST, GraphQLScalarType, parse, type DocumentNode } from 'graphql';
import {
  DateTimeResolver,
  EmailAddressResolver,
  IPv4Resolver,
  JSONObjectResolver,
  URLResolver,
  UUIDResolver,
} from 'graphql-scalars';
import type { Resolvers } from './generated/resolvers.ts';

const schemaDirectory = fileURLToPath(new URL('../../schema/', import.meta.url));

/** One document per SDL file. Only `*.graphql`: schema/ also holds the v1 OpenAPI document. */
export const typeDefs: DocumentNode[] = readdirSync(schemaDirectory)
  .filter((name) => name.endsWith('.graphql'))
  .sort()
  .map((name) => parse(readFileSync(schemaDirectory + name, 'utf8')));

const declared = buildASTSchema(concatAST(typeDefs));

/**
 * graphql-scalars' coercion, with the description and `@specifiedBy` URL the SDL gives. A
 * resolver's own `description` and `specifiedByURL` would otherwise replace the SDL's in the
 * executable schema, and Sandbox would show graphql-scalars' generic words instead of ours.
 */
function documentedBySdl(scalar: GraphQLScalarType): GraphQLScalarType {
  const sdl = declared.getType(scalar.name);
  if (!(sdl instanceof GraphQLScalarType)) throw new Error(`scalar ${scalar.name} is not declared in schema/*.graphql`);
  return new GraphQLScalarType({
    ...scalar.toConfig(),
    description: sdl.description,
    specifiedByURL: sdl.specifiedByURL,
    astNode: sdl.astNode,
  });
}

export const scalarResolvers = {
  DateTime: documentedBySdl(DateTimeResolver),
  EmailAddress: documentedBySdl(EmailAddressResolver),
  IPv4: documentedBySdl(IPv4Resolver),
  UUID: documentedBySdl(UUIDResolver),
  URL: documentedBySdl(URLResolver),
  JSONObject: documentedBySdl(JSONObjectResolver),
} satisfies Resolvers;
