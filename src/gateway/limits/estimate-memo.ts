// Estimates remembered per operation, for the cost limit and the throttle alike. Apollo hands out
// the same parsed document (and operation nodes) for the same query text from its document cache,
// so a client repeating an operation costs one estimate per distinct page size instead of a walk of
// the whole operation on every request. Only page sizes (`first`/`last`, Int) and @include/@skip
// (Boolean) change an estimate, and whether a time window is asked (window-estimate.ts): the values
// of the Int and Boolean variables, and whether those that can hold an instant do, name it. Kept
// per operation node: entries go when Apollo's cache lets the document go. A batch lookup's
// estimate also depends on how many items it is sent (fan-out.ts): list variables name it by their
// length.
import { Kind, type OperationDefinitionNode, type TypeNode, type VariableDefinitionNode } from 'graphql';
import { WINDOW_VARIABLE_TYPES, windowVariableKey } from './window-estimate.ts';

/** Estimates kept per operation (distinct page sizes a client asks with one document). */
const MAX_ESTIMATES_PER_OPERATION = 64;

function namedTypeName(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : namedTypeName(type.type);
}

function isList(type: TypeNode): boolean {
  return type.kind === Kind.LIST_TYPE || (type.kind === Kind.NON_NULL_TYPE && type.type.kind === Kind.LIST_TYPE);
}

interface Known<T> {
  variables: readonly VariableDefinitionNode[];
  estimates: Map<string, T>;
}

export interface EstimateMemo<T> {
  /** The operation's Int, Boolean and list variables, and those that can hold a window: what its estimates depend on. */
  variables(operation: OperationDefinitionNode): readonly VariableDefinitionNode[];
  /** The name of the estimate for these values of those variables. */
  key(operation: OperationDefinitionNode, values: Record<string, unknown> | undefined): string;
  get(operation: OperationDefinitionNode, key: string): T | undefined;
  set(operation: OperationDefinitionNode, key: string, estimate: T): void;
}

export function estimateMemo<T>(): EstimateMemo<T> {
  const known = new WeakMap<OperationDefinitionNode, Known<T>>();
  const entry = (operation: OperationDefinitionNode): Known<T> => {
    let found = known.get(operation);
    if (found === undefined) {
      const variables = (operation.variableDefinitions ?? []).filter((definition) => {
        const type = namedTypeName(definition.type);
        return type === 'Int' || type === 'Boolean' || WINDOW_VARIABLE_TYPES.has(type) || isList(definition.type);
      });
      known.set(operation, (found = { variables, estimates: new Map() }));
    }
    return found;
  };
  return {
    variables: (operation) => entry(operation).variables,
    key(operation, values) {
      let key = '';
      for (const definition of entry(operation).variables) {
        const value = values?.[definition.variable.name.value];
        const type = namedTypeName(definition.type);
        if (WINDOW_VARIABLE_TYPES.has(type)) key += `${windowVariableKey(value)},`;
        else key += type !== 'Int' && type !== 'Boolean' && Array.isArray(value) ? `#${value.length},` : `${JSON.stringify(value) ?? '-'},`;
      }
      return key;
    },
    get: (operation, key) => entry(operation).estimates.get(key),
    set(operation, key, estimate) {
      const { estimates } = entry(operation);
      if (estimates.size >= MAX_ESTIMATES_PER_OPERATION) estimates.clear();
      estimates.set(key, estimate);
    },
  };
}
