// Generated code is committed (codegen.yml): these tests fail when someone edits the SDL or the
// client operations without running `npm run codegen`, or when the executable schema drifts from
// the printed one that client tooling reads.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generate, loadCodegenConfig } from '@graphql-codegen/cli';
import { plugin as printSchemaAst } from '@graphql-codegen/schema-ast';
import { makeExecutableSchema } from '@graphql-tools/schema';
// graphql's CommonJS entry, the one @graphql-tools loads under Node: vitest would otherwise give
// this file the `module` (.mjs) entry, a second graphql whose printSchema rejects the schema.
import { buildSchema, lexicographicSortSchema } from 'graphql/index.js';
import { describe, expect, it } from 'vitest';
import { requiredScopesOf } from '../../src/gateway/identity/scopes.ts';
import { declared, scalarResolvers, typeDefs } from '../../src/gateway/schema.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const withoutTrailingNewline = (text: string) => text.replace(/\n+$/, '');

describe('generated code', () => {
  it('is what `npm run codegen` makes of the current SDL and operations', async () => {
    const { config } = await loadCodegenConfig({ configFilePath: `${root}codegen.yml` });
    const outputs: { filename: string; content: string }[] = await generate({ ...config, cwd: root, silent: true }, false);

    expect(outputs.map((output) => output.filename).sort()).toEqual(Object.keys(config.generates).sort());
    for (const { filename, content } of outputs) {
      const committed = readFileSync(`${root}${filename}`, 'utf8');
      expect(withoutTrailingNewline(committed), `${filename} is stale: run npm run codegen`).toBe(withoutTrailingNewline(content));
    }
  });

  it('prints the executable schema (SDL with the scalar resolvers) as src/gateway/generated/schema.graphql', async () => {
    const schema = makeExecutableSchema({ typeDefs, resolvers: scalarResolvers });
    const committed = readFileSync(`${root}src/gateway/generated/schema.graphql`, 'utf8');
    // codegen loads the SDL sorted (its default), so the printed file is in alphabetical order;
    // printed by the plugin codegen.yml names, with the same options, directives' uses included.
    const printed = await printSchemaAst(lexicographicSortSchema(schema), [], { includeDirectives: true });
    expect(withoutTrailingNewline(String(printed))).toBe(withoutTrailingNewline(committed));
  });

  it('shows each field\'s @requiresScopes in the printed schema, as the SDL declares it', () => {
    const committed = readFileSync(`${root}src/gateway/generated/schema.graphql`, 'utf8');
    const declaredScopes = requiredScopesOf(declared);
    expect(declaredScopes.size).toBeGreaterThan(10);
    expect(requiredScopesOf(buildSchema(committed))).toEqual(declaredScopes);
  });
});
