// The tools an assistant sees: one per named operation of the operation files (MCP_OPERATIONS, or
// the set shipped with the gateway), each checked against the schema the gateway serves when it
// starts. A file that cannot be read, an operation that is unnamed, invalid or a subscription, a
// name given twice: the start stops with one line naming it, rather than serving a tool that could
// only fail.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  GraphQLError,
  Kind,
  parse,
  print,
  validate,
  visit,
  type DefinitionNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { ConfigError } from '../config.ts';
import { variablesSchema, type JsonSchema } from './input-schema.ts';

/** One line naming the file, the operation and what is wrong with it: the start stops on it. */
export class OperationsError extends ConfigError {}

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
}

export interface OperationTool {
  /** The operation's name, which is the tool's. */
  name: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: ToolAnnotations;
  kind: 'query' | 'mutation';
  /** The document a call sends: the operation and the fragments it uses (or the trusted document that holds them). */
  document: string;
}

export interface OperationSource {
  /** How a message names it: a path, or what the default set is. */
  label: string;
  text: string;
}

/** The operation files of MCP_OPERATIONS: the file, or every .graphql/.gql file under the folder, in name order. */
export function readOperationFiles(path: string): OperationSource[] {
  let files: string[];
  try {
    files = statSync(path).isDirectory() ? graphqlFilesUnder(path) : [path];
  } catch (error) {
    throw new OperationsError(`MCP_OPERATIONS: cannot read "${path}" (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  if (files.length === 0) throw new OperationsError(`MCP_OPERATIONS: "${path}" holds no .graphql file`);
  return files.map((file) => {
    try {
      return { label: statSync(path).isDirectory() ? join(path, relative(path, file)) : file, text: readFileSync(file, 'utf8') };
    } catch (error) {
      throw new OperationsError(`MCP_OPERATIONS: cannot read "${file}" (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
    }
  });
}

function graphqlFilesUnder(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...graphqlFilesUnder(path));
    else if (/\.(graphql|gql)$/i.test(entry.name)) found.push(path);
  }
  return found;
}

/** The comment lines right above `offset` (no blank line between), without their `#`. */
function leadingComment(text: string, offset: number): string {
  const lines = text.slice(0, offset).split('\n');
  lines.pop(); // the operation's own line, up to where it starts
  const comment: string[] = [];
  for (let line = lines.pop(); line !== undefined && line.trim().startsWith('#'); line = lines.pop()) {
    comment.unshift(line.trim().replace(/^#\s?/, ''));
  }
  return comment.join('\n').trim();
}

/** `TopMaliciousDevices` → `Top malicious devices`. */
function titleOf(name: string): string {
  const words = name.replace(/_/g, ' ').replace(/([a-z0-9])([A-Z])/g, '$1 $2').trim().split(/\s+/);
  return words.map((word, index) => (index === 0 ? word[0]!.toUpperCase() + word.slice(1) : /^[A-Z0-9]+$/.test(word) && word.length > 1 ? word : word.toLowerCase())).join(' ');
}

function fragmentsUsedBy(operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): FragmentDefinitionNode[] {
  const used = new Map<string, FragmentDefinitionNode>();
  const pending: DefinitionNode[] = [operation];
  while (pending.length > 0) {
    visit(pending.pop()!, {
      FragmentSpread(spread) {
        const name = spread.name.value;
        const fragment = fragments.get(name);
        if (fragment && !used.has(name)) {
          used.set(name, fragment);
          pending.push(fragment);
        }
      },
    });
  }
  return [...used.values()].sort((a, b) => a.name.value.localeCompare(b.name.value));
}

/** A document's definitions printed one by one in name order: two texts of the same operations compare equal. */
export function normalizedDocument(document: DocumentNode): string {
  const named = document.definitions.map((definition) => print(definition));
  return named.sort().join('\n');
}

export interface ToolOptions {
  schema: GraphQLSchema;
  allowMutations: boolean;
  /** With trusted documents enforced: the trusted documents' texts; a tool must be one of them. */
  trusted?: Iterable<string>;
  /** What to do with an operation that is not trusted: stop the start (a file the operator chose), or leave it out (the default set). */
  untrusted?: 'stop' | 'leave out';
}

export interface LoadedTools {
  tools: OperationTool[];
  /** Mutations left out because MCP_ALLOW_MUTATIONS is off. */
  mutationsLeftOut: string[];
  /** Operations left out because they are not trusted documents (`untrusted: 'leave out'`). */
  untrustedLeftOut: string[];
}

export function loadTools(sources: readonly OperationSource[], options: ToolOptions): LoadedTools {
  const operations: { operation: OperationDefinitionNode; source: OperationSource }[] = [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const source of sources) {
    let document: DocumentNode;
    try {
      document = parse(source.text);
    } catch (error) {
      throw new OperationsError(`MCP_OPERATIONS: ${source.label}: ${(error as Error).message.split('\n')[0]}`);
    }
    for (const definition of document.definitions) {
      const where = `${source.label}:${definition.loc ? lineOf(source.text, definition.loc.start) : '?'}`;
      if (definition.kind === Kind.FRAGMENT_DEFINITION) {
        if (fragments.has(definition.name.value)) throw new OperationsError(`MCP_OPERATIONS: ${where}: fragment "${definition.name.value}" is defined twice`);
        fragments.set(definition.name.value, definition);
      } else if (definition.kind === Kind.OPERATION_DEFINITION) {
        if (!definition.name) throw new OperationsError(`MCP_OPERATIONS: ${where}: an operation without a name cannot be a tool: name it (query ToolName { … })`);
        operations.push({ operation: definition, source });
      } else {
        throw new OperationsError(`MCP_OPERATIONS: ${where}: only operations and fragments belong in an operation file, not a ${definition.kind}`);
      }
    }
  }
  const trusted = options.trusted ? trustedByShape(options.trusted) : undefined;
  const tools: OperationTool[] = [];
  const mutationsLeftOut: string[] = [];
  const untrustedLeftOut: string[] = [];
  const names = new Set<string>();
  for (const { operation, source } of operations) {
    const name = operation.name!.value;
    const where = `${source.label}:${operation.loc ? lineOf(source.text, operation.loc.start) : '?'}`;
    if (names.has(name)) throw new OperationsError(`MCP_OPERATIONS: ${where}: operation "${name}" is defined twice; each tool needs its own name`);
    names.add(name);
    if (operation.operation === 'subscription') {
      throw new OperationsError(`MCP_OPERATIONS: ${where}: operation "${name}" is a subscription; a tool answers once, so only queries and mutations can be tools`);
    }
    const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...fragmentsUsedBy(operation, fragments)] };
    const errors = validate(options.schema, document);
    if (errors.length > 0) throw new OperationsError(`MCP_OPERATIONS: ${where}: operation "${name}" is invalid: ${firstLine(errors[0]!)}`);
    if (operation.operation === 'mutation' && !options.allowMutations) {
      mutationsLeftOut.push(name);
      continue;
    }
    let text = print(document);
    if (trusted) {
      const trustedText = trusted.get(normalizedDocument(document));
      if (trustedText === undefined && options.untrusted === 'leave out') {
        untrustedLeftOut.push(name);
        continue;
      }
      if (trustedText === undefined) {
        throw new OperationsError(`MCP_OPERATIONS: ${where}: operation "${name}" is not a trusted document, and TRUSTED_DOCUMENTS_MODE=enforce runs only those: add it to the manifest or leave it out`);
      }
      text = trustedText;
    }
    tools.push({
      name,
      description: leadingComment(source.text, operation.loc?.start ?? 0) || rootFieldDescriptions(options.schema, operation) || titleOf(name),
      inputSchema: variablesSchema(options.schema, document, operation),
      annotations: annotationsOf(operation, name),
      kind: operation.operation,
      document: text,
    });
  }
  return { tools, mutationsLeftOut, untrustedLeftOut };
}

function annotationsOf(operation: OperationDefinitionNode, name: string): ToolAnnotations {
  if (operation.operation === 'query') return { title: titleOf(name), readOnlyHint: true };
  const fields = rootFieldNames(operation);
  // The clients' default for a tool that is not read-only is "destructive": said plainly both ways.
  const deletes = fields.some((field) => /^delete/i.test(field));
  return { title: titleOf(name), readOnlyHint: false, destructiveHint: deletes };
}

function rootFieldNames(operation: OperationDefinitionNode): string[] {
  return operation.selectionSet.selections.flatMap((selection) => (selection.kind === Kind.FIELD ? [selection.name.value] : []));
}

/** Without a leading comment: what the SDL says of the root fields the operation reads or changes. */
function rootFieldDescriptions(schema: GraphQLSchema, operation: OperationDefinitionNode): string {
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const fields = root?.getFields() ?? {};
  return rootFieldNames(operation)
    .map((field) => fields[field]?.description?.trim())
    .filter(Boolean)
    .join('\n\n');
}

function trustedByShape(texts: Iterable<string>): Map<string, string> {
  const byShape = new Map<string, string>();
  for (const text of texts) {
    try {
      byShape.set(normalizedDocument(parse(text)), text);
    } catch {
      // A manifest entry that does not parse can match no operation.
    }
  }
  return byShape;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) line += 1;
  return line;
}

function firstLine(error: GraphQLError): string {
  return error.message.split('\n')[0] ?? '';
}
