// The gateway's SDL: schema/*.graphql (the same files, in the same order, as codegen.yml's
// `schema` glob), one document per file, read and parsed at start-up.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, type DocumentNode } from 'graphql';
import { projectPath } from './project-path.ts';

const schemaDirectory = projectPath('schema');

/** One document per SDL file. Only `*.graphql`: schema/ also holds the v1 OpenAPI document. */
export const sdlDocuments: DocumentNode[] = readdirSync(schemaDirectory)
  .filter((name) => name.endsWith('.graphql'))
  .sort()
  .map((name) => parse(readFileSync(join(schemaDirectory, name), 'utf8')));
