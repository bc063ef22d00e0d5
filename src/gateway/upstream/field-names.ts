// v1's names for the parts of a request, as a GraphQL client knows them. v1 names a faulty input
// by its query parameter (`organization`), path parameter (`organizationid`) or body path
// (`security_frameworks.2.evidence_type`); the client sent `organizationId`, `filter.search` or
// `input.controls[2].evidenceType`. Each route says how its names read (its domain declares them
// with `names()`), so that an error message speaks of what the client wrote. `extensions.upstream`
// keeps v1's own words.

/** The GraphQL name of one of a route's v1 names, or undefined when it has none. */
export type FieldNames = (v1Field: string) => string | undefined;

const CAMEL = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * A route's names: fixed ones (`{ organizationid: 'organizationId' }`), then indexed body paths
 * (`list.N.field`): `lists` maps a v1 list to its GraphQL path and, where they differ from the
 * camel-cased v1 name, its items' field names.
 */
export function names(fixed: Record<string, string>, lists: Record<string, { path: string; fields?: Record<string, string> }> = {}): FieldNames {
  return (field) => {
    const known = fixed[field];
    if (known !== undefined) return known;
    const match = /^([a-z_]+)\.(\d+)(?:\.([A-Za-z_]+))?$/.exec(field);
    const list = match ? lists[match[1]!] : undefined;
    if (!match || !list) return undefined;
    const item = `${list.path}[${match[2]}]`;
    return match[3] === undefined ? item : `${item}.${list.fields?.[match[3]] ?? CAMEL(match[3])}`;
  };
}

const ESCAPE = /[.*+?^${}()|[\]\\]/g;

/**
 * v1's message in GraphQL's words: the v1 name it starts with (`security_frameworks.0.weight must
 * be…`), or that it calls "the query parameter …", replaced by the GraphQL name. Elsewhere in a
 * sentence the same word is plain English ("may not act on organization 2") and stays.
 */
export function inGraphQLWords(message: string, v1Field: string | undefined, graphqlName: string | undefined): string {
  if (v1Field === undefined || graphqlName === undefined) return message;
  const name = v1Field.replace(ESCAPE, '\\$&');
  return message
    .replace(new RegExp(`^${name}(?![\\w\\[]|\\.\\w)`), graphqlName)
    .replace(new RegExp(`the (query|path) parameter ${name}(?![\\w\\[]|\\.\\w)`), `the argument ${graphqlName}`);
}
