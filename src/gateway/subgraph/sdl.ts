// The gateway's SDL as a Federation 2 subgraph: the SDL files themselves (sdl.ts), with the link to
// the federation spec and each entity's directives added here, in one place. The files stay free
// of federation, so that the schema served without SUBGRAPH=1 is exactly the SDL's.
import { Kind, parse, type ConstDirectiveNode, type DefinitionNode, type DocumentNode, type ObjectTypeDefinitionNode } from 'graphql';

/** The federation spec version linked, and the directives this subgraph imports from it. */
export const FEDERATION_SPEC_URL = 'https://specs.apollo.dev/federation/v2.9';
export const FEDERATION_IMPORTS = ['@key', '@shareable'] as const;

/** `extend schema @link(...)`: what makes the SDL a Federation 2 subgraph. */
export const federationLink: DocumentNode = parse(
  `extend schema @link(url: "${FEDERATION_SPEC_URL}", import: [${FEDERATION_IMPORTS.map((name) => JSON.stringify(name)).join(', ')}])`,
);

/**
 * The entities and how the supergraph may use them:
 * - a device is found by its id, as `protectionDevice(id)` finds it;
 * - a framework by its organization and id, as `securityFramework(organizationId, id)` does (v1
 *   lists frameworks per organization: the id alone does not say where to look);
 * - an organization is only referred to: v1 has no read of one, so this subgraph cannot resolve it
 *   by key, and its fields are shared with any subgraph that also holds them.
 */
const TYPE_DIRECTIVES: Readonly<Record<string, string>> = {
  ProtectionDevice: '@key(fields: "id")',
  SecurityFramework: '@key(fields: "organizationId id")',
  Organization: '@key(fields: "id", resolvable: false)',
};
const SHAREABLE_FIELDS_OF = new Set(['Organization']);

export const ENTITY_TYPES = Object.keys(TYPE_DIRECTIVES);

/** Directives as the SDL would write them after a type's name, parsed once. */
function directivesOf(source: string): readonly ConstDirectiveNode[] {
  const [definition] = parse(`type T ${source}`).definitions as [ObjectTypeDefinitionNode];
  return definition.directives ?? [];
}

const SHAREABLE = directivesOf('@shareable');

/**
 * What the SDL files hold for the plain schema only: `@requiresScopes` (its definition, its
 * argument's scalar and its uses). The subgraph checks scopes itself, on every request, whoever
 * sends it; left in the SDL, composition would carry the scopes into the supergraph as a security
 * feature, and a router that cannot enforce it (Apollo's JS gateway, a router without the
 * authorization feature) refuses the whole supergraph.
 */
const SCOPES_DIRECTIVE = 'requiresScopes';
const SCOPES_SCALAR = 'federation__Scope';

function forThePlainSchemaOnly(definition: DefinitionNode): boolean {
  if (definition.kind === Kind.DIRECTIVE_DEFINITION) return definition.name.value === SCOPES_DIRECTIVE;
  if (definition.kind === Kind.SCALAR_TYPE_DEFINITION) return definition.name.value === SCOPES_SCALAR;
  return false;
}

function withoutScopes(definition: DefinitionNode): DefinitionNode {
  if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION && definition.kind !== Kind.OBJECT_TYPE_EXTENSION) return definition;
  return {
    ...definition,
    fields: definition.fields?.map((field) => ({ ...field, directives: field.directives?.filter((directive) => directive.name.value !== SCOPES_DIRECTIVE) })),
  };
}

function withFederation(definition: DefinitionNode): DefinitionNode {
  if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION) return definition;
  const name = definition.name.value;
  const directives = TYPE_DIRECTIVES[name];
  if (directives === undefined) return definition;
  return {
    ...definition,
    directives: [...(definition.directives ?? []), ...directivesOf(directives)],
    ...(SHAREABLE_FIELDS_OF.has(name)
      ? { fields: definition.fields?.map((field) => ({ ...field, directives: [...(field.directives ?? []), ...SHAREABLE] })) }
      : {}),
  };
}

/** The subgraph's SDL: the link, then the SDL files with the entities' directives and without the scopes. */
export function subgraphTypeDefs(sdl: readonly DocumentNode[]): DocumentNode[] {
  const documents = sdl
    .map((document) => ({
      ...document,
      definitions: document.definitions.filter((definition) => !forThePlainSchemaOnly(definition)).map(withoutScopes).map(withFederation),
    }))
    .filter((document) => document.definitions.length > 0);
  const found = new Set(documents.flatMap((document) => document.definitions.flatMap((d) => (d.kind === Kind.OBJECT_TYPE_DEFINITION ? [d.name.value] : []))));
  for (const name of ENTITY_TYPES) if (!found.has(name)) throw new Error(`the entity type ${name} is not declared in schema/*.graphql`);
  return [federationLink, ...documents];
}
