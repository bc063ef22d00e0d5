// The executable schema is the SDL's own, given its resolvers in place (domains/index.ts): it must
// still print as the SDL does, refer to one object per named type everywhere, and keep each custom
// scalar's directives as the SDL writes them.
import {
  buildASTSchema,
  concatAST,
  getNamedType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  printSchema,
  validateSchema,
  type GraphQLSchema,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../../src/gateway/domains/index.ts';
import { typeDefs } from '../../../src/gateway/schema.ts';

/** Every field, argument and input field whose named type is not the schema's object of that name. */
function strayTypeReferences(schema: GraphQLSchema): string[] {
  const stray: string[] = [];
  const check = (path: string, type: Parameters<typeof getNamedType>[0]) => {
    const named = getNamedType(type);
    if (named !== undefined && schema.getType(named.name) !== named) stray.push(`${path}: ${named.name}`);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        check(`${type.name}.${field.name}`, field.type);
        for (const arg of field.args) check(`${type.name}.${field.name}(${arg.name})`, arg.type);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) check(`${type.name}.${field.name}`, field.type);
    }
  }
  return stray;
}

describe('the executable schema', () => {
  const schema = buildSchema();

  it('prints exactly as the SDL files do, and is valid', () => {
    expect(printSchema(schema)).toBe(printSchema(buildASTSchema(concatAST(typeDefs))));
    expect(validateSchema(schema)).toEqual([]);
  });

  it('refers to one object per named type wherever the type is used (enums given values included)', () => {
    expect(strayTypeReferences(schema)).toEqual([]);
  });

  it("keeps each custom scalar's directives as the SDL writes them, once", () => {
    const fresh = buildASTSchema(concatAST(typeDefs));
    const scalars = Object.values(schema.getTypeMap()).filter((type) => isScalarType(type) && type.astNode !== undefined && type.astNode !== null);
    expect(scalars.length).toBeGreaterThan(3);
    for (const scalar of scalars) {
      const sdl = fresh.getType(scalar.name);
      expect(scalar.astNode?.directives?.map((directive) => directive.name.value)).toEqual(sdl?.astNode?.directives?.map((directive) => directive.name.value));
    }
  });

  it('is built once: every gateway in the process is given the same one', () => {
    expect(buildSchema()).toBe(schema);
  });
});
