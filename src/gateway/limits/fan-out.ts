// A list field that answers one item per item of a list argument (a batch lookup, such as a
// subgraph's `_entities(representations:)`): what it selects is asked once per item sent, so
// estimates count its children that many times, as they count a connection's per item of its page.
import { isListType, isNonNullType, type GraphQLField, type GraphQLType } from 'graphql';

function isList(type: GraphQLType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}

/** How many items the field is asked for through its list argument; undefined when it is no batch lookup. */
export function itemsAsked(field: GraphQLField<unknown, unknown>, args: Record<string, unknown>): number | undefined {
  if (!isList(field.type)) return undefined;
  const argument = field.args.find((candidate) => isList(candidate.type));
  if (argument === undefined) return undefined;
  const value = args[argument.name];
  return Array.isArray(value) ? value.length : undefined;
}
