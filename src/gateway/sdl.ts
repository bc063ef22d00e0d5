// The gateway's SDL: schema/*.graphql (the same files, in the same order, as codegen.yml's
// `schema` glob), one document per file, read and parsed at start-up. The bundle that `npm start`
// runs puts in this module's place the same documents, parsed and checked as it was built
// (scripts/bundle.mjs, `sdlParsedAtBuild`): lexing the SDL and checking it, on code not yet
// warm, took some 30 ms of every start, where reading the parsed documents takes one.
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

/** Whether the documents were checked against the SDL's rules already: here, not yet. */
export const sdlChecked: boolean = false;
