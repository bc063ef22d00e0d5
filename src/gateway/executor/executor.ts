// How operations are executed: graphql-jit compiles each operation once into a plain function,
// which then runs several times faster than graphql-js's interpreter over the large lists this
// API returns (50 devices with their hourly statistics are some 7,000 fields): the benchmark showed
// that graphql-js's per-field work and its garbage were most of the gateway's cost.
//
// Apollo Server 5 has no executor option; its migration guide points custom executors to the
// `gateway` option, whose `load` hands Apollo the schema and an executor. Apollo still does all the
// rest as before: parsing, validation (with the limits' rules), the document cache, plugins, error
// formatting. Only `execute` is replaced, and its answers are kept to graphql-js's (below).
import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import {
  execute,
  Kind,
  visit,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { GraphQLError as JitGraphQLError } from 'graphql-jit/dist/error';
import { createCompiledCache, entryBytes, type Compiled, type CompiledCacheOptions } from './cache.ts';
import { badUpstreamScalarFromMessage } from '../schema.ts';

export interface JitExecutorOptions extends CompiledCacheOptions {
  /** Execution refused the operation's variables (they do not fit their definitions): nothing ran. */
  onVariablesRefused?: (operationContext: object) => void;
}

type Variables = Record<string, unknown> | undefined;

/**
 * The executor: the compiled operation for the document and operation name (compiled on first
 * use), run with the request's context and variables.
 */
export function jitExecutor(schema: GraphQLSchema, options: JitExecutorOptions = {}): GatewayExecutor {
  // Keyed by the query text, not the DocumentNode: Apollo's document cache may parse the same text
  // again after an eviction, and the text is what the compiled code reflects.
  const compiled = createCompiledCache(options);
  const compile = (document: DocumentNode, source: string, operation: OperationDefinitionNode, operationName: string | undefined): Compiled => {
    const key = `${operationName ?? ''}\n${source}`;
    let entry = compiled.get(key);
    if (entry === undefined) {
      // A document graphql-jit cannot compile, or would read differently, runs on graphql-js: no
      // valid operation is refused or changed for the executor's sake.
      entry = nullableInSkipOrInclude(document, operation) ? 'graphql-js' : compileOrNot(schema, document, operationName);
      compiled.set(key, entry, { size: entryBytes(entry, document, operation) });
    }
    return entry;
  };
  const interpret = (document: DocumentNode, context: unknown, variables: Variables, operationName: string | undefined) =>
    execute({ schema, document, contextValue: context, variableValues: variables, operationName });
  const { onVariablesRefused } = options;

  const run: GatewayExecutor = async ({ document, source, request, operation, operationName, context }) => {
    const name = operationName ?? undefined;
    // Mutations run compiled too: graphql-js coerces their variables (a framework edit's input of
    // controls) several times slower than the code graphql-jit generates for them. Subscriptions
    // never reach this executor (graphql-ws runs them).
    if (operation.operation === 'subscription') return interpret(document, context, request.variables, name);
    const entry = compile(document, source, operation, name);
    if (entry === 'graphql-js') return interpret(document, context, request.variables, name);
    const result = await entry.query(undefined, context, request.variables);
    // The variables were refused before anything ran: graphql-js says why in the words (and with
    // the suggestions) clients know, and Apollo reads its errors as BAD_USER_INPUT.
    if (variablesRefused(result)) return interpret(document, context, request.variables, name);
    return result.errors?.length ? { ...result, errors: asGraphqlJs(result.errors, result.data) } : result;
  };
  if (onVariablesRefused === undefined) return run;
  return async (requestContext) => {
    const result = await run(requestContext);
    if (variablesRefused(result)) onVariablesRefused(requestContext.context);
    return result;
  };
}

/** No `data` at all, only errors: the variables were refused before anything ran. */
function variablesRefused(result: ExecutionResult): boolean {
  return result.data === undefined && (result.errors?.length ?? 0) > 0;
}

function compileOrNot(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): Compiled {
  try {
    const result = compileQuery(schema, document, operationName);
    return isCompiledQuery(result) ? result : 'graphql-js';
  } catch {
    return 'graphql-js';
  }
}

/**
 * graphql-jit's field errors, made what graphql-js would have answered:
 * - a scalar's `serialize` error keeps only its message in graphql-jit: the gateway's own (a value
 *   from upstream that the scalar cannot represent) gets its code back;
 * - where errors nulled a position of `data` above their own field (through non-null fields), one
 *   error is kept for it: the first graphql-js would have met (list items by index, fields in
 *   document order). graphql-js gives up on an object at its first such error; graphql-jit
 *   completes every field and reports them all.
 */
function asGraphqlJs(errors: readonly GraphQLError[], data: ExecutionResult['data']): GraphQLError[] {
  const kept: GraphQLError[] = [];
  // Per nulled position (the outermost null on the error's path): the error kept for it.
  const atBoundary = new Map<string, number>();
  for (const error of errors) {
    const restored = error.originalError == null ? badUpstreamScalarFromMessage(error.message) : undefined;
    const candidate = restored ? located(error, restored) : error;
    const path = error.path ?? [];
    const boundary = nullBoundary(data, path);
    // The field's own null (a nullable field that failed, its parent kept): its own error.
    if (boundary === undefined || boundary.length === path.length) {
      kept.push(candidate);
      continue;
    }
    const key = JSON.stringify(boundary);
    const index = atBoundary.get(key);
    if (index === undefined) {
      atBoundary.set(key, kept.length);
      kept.push(candidate);
    } else if (precedes(candidate, kept[index]!)) {
      kept[index] = candidate;
    }
  }
  return kept;
}

/** The shortest prefix of `path` whose value in `data` is null; undefined when there is none. */
function nullBoundary(data: unknown, path: readonly (string | number)[]): readonly (string | number)[] | undefined {
  let value = data;
  for (let i = 0; i <= path.length; i++) {
    if (value === null || value === undefined) return path.slice(0, i);
    if (i === path.length || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[path[i]!];
  }
  return undefined;
}

/** Whether graphql-js would have completed `a` before `b`: list items by index, fields in document order. */
function precedes(a: GraphQLError, b: GraphQLError): boolean {
  const [pa, pb] = [a.path ?? [], b.path ?? []];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] === pb[i]) continue;
    if (typeof pa[i] === 'number' && typeof pb[i] === 'number') return (pa[i] as number) < (pb[i] as number);
    break;
  }
  const [at, bt] = [a.locations?.[0], b.locations?.[0]];
  if (at === undefined || bt === undefined) return false;
  return at.line < bt.line || (at.line === bt.line && at.column < bt.column);
}

/**
 * Whether the operation puts a nullable variable in @skip's or @include's `if: Boolean!` (allowed
 * with a default): sent as null, graphql-js refuses it, and graphql-jit would skip or keep the
 * field without a word.
 */
function nullableInSkipOrInclude(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  const nullable = new Set(
    (operation.variableDefinitions ?? [])
      .filter((definition) => definition.type.kind !== Kind.NON_NULL_TYPE)
      .map((definition) => definition.variable.name.value),
  );
  if (nullable.size === 0) return false;
  let found = false;
  visit(document, {
    Directive(directive) {
      if (directive.name.value !== 'skip' && directive.name.value !== 'include') return;
      for (const argument of directive.arguments ?? []) {
        if (argument.value.kind === Kind.VARIABLE && nullable.has(argument.value.name.value)) found = true;
      }
    },
  });
  return found;
}

/** `original` at the place (locations, path) of graphql-jit's `error`. */
function located(error: GraphQLError, original: GraphQLError): GraphQLError {
  return new (JitGraphQLError as unknown as new (...args: unknown[]) => GraphQLError)(
    original.message,
    error.locations,
    error.path,
    original,
    true,
  );
}

/** The `gateway` option of ApolloServer: a fixed schema, executed by `jitExecutor`. */
export function jitGateway(schema: GraphQLSchema, options?: JitExecutorOptions): GatewayInterface {
  return {
    onSchemaLoadOrUpdate(callback) {
      // Apollo derives its validation and document cache from the schema given here, once: this
      // schema never changes.
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => {};
    },
    async load() {
      return { executor: jitExecutor(schema, options) };
    },
    async stop() {},
  };
}
