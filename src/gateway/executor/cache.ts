// The executor's cache of compiled operations, bounded in count and in memory: in a heap of 128 MB,
// clients sending distinct operations must not fill it with generated code.
import { Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';

/** A compiled operation, or the mark of one that runs on graphql-js. */
export type Compiled = CompiledQuery | 'graphql-js';

export interface CompiledCacheOptions {
  /** Compiled operations kept (least recently used go first). Default 1,000. */
  cacheSize?: number;
  /** Estimated memory of the compiled operations kept. Default 8 MiB. */
  cacheBytes?: number;
}

/**
 * What a compiled operation holds: its document, and code and closures for every field it
 * selects, fragments copied at each spread. So its weight is a fixed part and a part per field
 * selected with fragments expanded (sized on heap snapshots of compiled operations): aliases that
 * spread a large fragment weigh far more than their text suggests.
 */
const BASE_BYTES = 16 * 1024;
const BYTES_PER_FIELD = 4 * 1024;

export function createCompiledCache({ cacheSize = 1_000, cacheBytes = 8 * 1024 * 1024 }: CompiledCacheOptions = {}) {
  return new LRUCache<string, Compiled>({ max: cacheSize, maxSize: cacheBytes });
}

/**
 * The size to give the cache for an entry (one larger than the whole budget is not kept): a mark
 * of graphql-js counts next to nothing.
 */
export function entryBytes(entry: Compiled, document: DocumentNode, operation: OperationDefinitionNode): number {
  return entry === 'graphql-js' ? 1 : compiledBytes(document, operation);
}

/** The estimated memory of `operation` compiled. */
export function compiledBytes(document: DocumentNode, operation: OperationDefinitionNode): number {
  return BASE_BYTES + BYTES_PER_FIELD * fieldsToCompile(document, operation);
}

/** The fields of `operation` with every fragment spread expanded, as graphql-jit generates them. */
export function fieldsToCompile(document: DocumentNode, operation: OperationDefinitionNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const perFragment = new Map<string, number>();
  const spread = (name: string): number => {
    const known = perFragment.get(name);
    if (known !== undefined) return known;
    // A cycle (validation refuses them before execution) counts nothing the second time round.
    perFragment.set(name, 0);
    const fragment = fragments.get(name);
    const fields = fragment ? count(fragment.selectionSet) : 0;
    perFragment.set(name, fields);
    return fields;
  };
  const count = (selectionSet: SelectionSetNode): number => {
    let fields = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) fields += 1 + (selection.selectionSet ? count(selection.selectionSet) : 0);
      else if (selection.kind === Kind.INLINE_FRAGMENT) fields += count(selection.selectionSet);
      else fields += spread(selection.name.value);
    }
    return fields;
  };
  return count(operation.selectionSet);
}
