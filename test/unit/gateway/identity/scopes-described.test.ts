// What a front-end developer sees of `@requiresScopes` where introspection cannot show a directive's
// uses: the field's description ends with the scopes it needs, so GraphiQL's and Sandbox's docs,
// an editor's GraphQL hover and the generated types' doc comments all say it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { requiredScopesOf } from '../../../../src/gateway/identity/scopes.ts';
import { declared } from '../../../../src/gateway/schema.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** The sentence a field's description ends with: `[["a", "b"], ["c"]]` → needs scopes `a` and `b`, or scope `c`. */
function sentenceOf(scopes: readonly (readonly string[])[]): string {
  const sets = scopes.map((all) => `${all.length > 1 ? 'scopes' : 'scope'} ${all.map((scope) => `\`${scope}\``).join(' and ')}`);
  return `A signed-in user needs ${sets.join(', or ')}.`;
}

const SAYS_SCOPES = /A signed-in user needs scopes? /;

function fieldsOf(schema: typeof declared) {
  return Object.values(schema.getTypeMap())
    .filter((type): type is GraphQLObjectType => type instanceof GraphQLObjectType && !type.name.startsWith('__'))
    .flatMap((type) => Object.values(type.getFields()).map((field) => ({ name: `${type.name}.${field.name}`, type: type.name, field })));
}

/** The doc comment the typescript plugin wrote above `field` in `export type <type> = {` of generated/resolvers.ts. */
function generatedDocComment(generated: string, type: string, field: string): string | undefined {
  const start = generated.indexOf(`export type ${type} = {\n`);
  if (start < 0) return undefined;
  const body = generated.slice(start, generated.indexOf('\n};\n', start));
  const match = new RegExp(`/\\*\\*((?:(?!\\*/)[\\s\\S])*)\\*/\\n  ${field}\\??:`).exec(body);
  return match?.[1]?.replace(/^\s*\* ?/gm, '').trim();
}

describe('@requiresScopes in the descriptions', () => {
  const required = requiredScopesOf(declared);

  it('ends the description of every field that has it with the scopes it needs', () => {
    expect(required.size).toBeGreaterThan(10);
    const wrong = [...required].flatMap(([name, scopes]) => {
      const [type, field] = name.split('.') as [string, string];
      const description = (declared.getType(type) as GraphQLObjectType).getFields()[field]?.description ?? '';
      return description.trimEnd().endsWith(`\n\n${sentenceOf(scopes)}`) ? [] : [`${name}: ${sentenceOf(scopes)}`];
    });
    expect(wrong).toEqual([]);
  });

  it('names scopes in no description of a field without the directive', () => {
    const stray = fieldsOf(declared).filter(({ name, field }) => !required.has(name) && SAYS_SCOPES.test(field.description ?? ''));
    expect(stray.map(({ name }) => name)).toEqual([]);
  });

  it('puts the same words in the generated types’ doc comments', () => {
    const generated = readFileSync(`${root}src/gateway/generated/resolvers.ts`, 'utf8');
    for (const [name, scopes] of required) {
      const [type, field] = name.split('.') as [string, string];
      expect(generatedDocComment(generated, type, field), name).toMatch(new RegExp(`\\n\\n${sentenceOf(scopes).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    }
  });

  it('says any of and all of as the directive means them', () => {
    expect(sentenceOf([['devices:read']])).toBe('A signed-in user needs scope `devices:read`.');
    expect(sentenceOf([['a', 'b'], ['c']])).toBe('A signed-in user needs scopes `a` and `b`, or scope `c`.');
  });
});
