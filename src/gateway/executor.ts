// How operations are executed: graphql-jit compiles each operation once into a plain function,
// which then runs several times faster than graphql-js's interpreter over the large lists this
// API returns (50 devices with their hourly statistics are some 7,000 fields). The bench showed it
// (issue 5): graphql-js's per-field work and its garbage were most of the gateway's cost.
//
// Apollo Server 5 has no executor option; its migration guide points custom executors to the
// `gateway` option, whose `load` hands Apollo the schema and an executor. Apollo still does all the
// rest as before: parsing, validation (with the limits' rules), the document cache, plugins, error
// formatting. Only `execute` is replaced, and its answers are kept to graphql-js's (below).
import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import { execute, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { GraphQLError as JitGraphQLError } from 'graphql-jit/dist/error';
import { LRUCache } from 'lru-cache';
import { badUpstreamScalarFromMessage } from './schema.ts';

/** Compiled operations kept; each is generated code, so the cache is bounded. */
const DEFAULT_CACHE_SIZE = 1_000;

export interface JitExecutorOptions {
  /** Compiled operations kept (least recently used go first). */
  cacheSize?: number;
}

type Compiled = CompiledQuery | 'graphql-js';

type Variables = Record<string, unknown> | undefined;

/**
 * The executor: the compiled operation for the document and operation name (compiled on first
 * use), run with the request's context and variables.
 */
export function jitExecutor(schema: GraphQLSchema, { cacheSize = DEFAULT_CACHE_SIZE }: JitExecutorOptions = {}): GatewayExecutor {
  // Keyed by the query text, not the DocumentNode: Apollo's document cache may parse the same text
  // again after an eviction, and the text is what the compiled code reflects.
  const compiled = new LRUCache<string, Compiled>({ max: cacheSize });
  const compile = (document: DocumentNode, source: string, operationName: string | undefined): Compiled => {
    const key = `${operationName ?? ''}\n${source}`;
    let entry = compiled.get(key);
    if (entry === undefined) {
      try {
        const result = compileQuery(schema, document, operationName);
        // A document graphql-jit cannot compile runs on graphql-js: no valid operation is refused
        // for the executor's sake.
        entry = isCompiledQuery(result) ? result : 'graphql-js';
      } catch {
        entry = 'graphql-js';
      }
      compiled.set(key, entry);
    }
    return entry;
  };
  const interpret = (document: DocumentNode, context: unknown, variables: Variables, operationName: string | undefined) =>
    execute({ schema, document, contextValue: context, variableValues: variables, operationName });

  return async ({ document, source, request, operation, operationName, context }) => {
    const name = operationName ?? undefined;
    // Mutations stay on graphql-js: when one fails and nulls `data`, graphql-js runs none of the
    // later ones, and graphql-jit would. A write costs far more upstream than its few fields here.
    if (operation.operation !== 'query') return interpret(document, context, request.variables, name);
    const entry = compile(document, source, name);
    if (entry === 'graphql-js') return interpret(document, context, request.variables, name);
    const result = await entry.query(undefined, context, request.variables);
    // No `data` at all: the variables were refused before anything ran. graphql-js says why in the
    // words (and with the suggestions) clients know, and Apollo reads its errors as BAD_USER_INPUT.
    if (result.data === undefined && result.errors?.length) return interpret(document, context, request.variables, name);
    return result.errors?.length ? { ...result, errors: asGraphqlJs(result.errors, result.data) } : result;
  };
}

/**
 * graphql-jit's field errors, made what graphql-js would have answered:
 * - a scalar's `serialize` error keeps only its message in graphql-jit: the gateway's own (a value
 *   from upstream that the scalar cannot represent) gets its code back;
 * - one error thrown by several fields of an object that it nulled (through a non-null field) is
 *   reported once, at the first of those fields in the document: graphql-js completes an object's
 *   fields in order and gives up at the first that nulls it; graphql-jit completes them all.
 */
function asGraphqlJs(errors: readonly GraphQLError[], data: ExecutionResult['data']): GraphQLError[] {
  const kept: (GraphQLError | undefined)[] = [];
  // Per parent path: the errors kept there, by what was thrown.
  const atParent = new Map<string, Map<unknown, number>>();
  for (const error of errors) {
    const original = error.originalError;
    if (original === undefined || original === null) {
      const restored = badUpstreamScalarFromMessage(error.message);
      kept.push(restored ? located(error, restored) : error);
      continue;
    }
    const parentPath = error.path?.slice(0, -1) ?? [];
    if (valueAt(data, parentPath) !== null) {
      kept.push(error);
      continue;
    }
    const parent = JSON.stringify(parentPath);
    let thrown = atParent.get(parent);
    if (thrown === undefined) atParent.set(parent, (thrown = new Map()));
    const index = thrown.get(original);
    if (index === undefined) {
      thrown.set(original, kept.length);
      kept.push(error);
    } else if (before(error, kept[index]!)) {
      kept[index] = error;
    }
  }
  return kept.filter((error) => error !== undefined);
}

/** The value at `path` in `data`; null where the path meets a null. */
function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let value = data;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return null;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value ?? null;
}

function before(a: GraphQLError, b: GraphQLError): boolean {
  const [at, bt] = [a.locations?.[0], b.locations?.[0]];
  if (at === undefined || bt === undefined) return false;
  return at.line < bt.line || (at.line === bt.line && at.column < bt.column);
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
