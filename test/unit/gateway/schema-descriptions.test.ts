// The contract promises a description on every type, field, argument and enum value, so that
// Sandbox's docs panel explains the domain. This walks the schema the gateway serves.
import { makeExecutableSchema } from '@graphql-tools/schema';
// graphql's CommonJS entry, the one @graphql-tools loads under Node (see generated-current.test.ts).
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  type GraphQLNamedType,
} from 'graphql/index.js';
import { describe, expect, it } from 'vitest';
import { scalarResolvers, typeDefs } from '../../../src/gateway/schema.ts';

function undocumented(type: GraphQLNamedType): string[] {
  const missing: string[] = [];
  const check = (path: string, description: string | null | undefined) => {
    if (!description?.trim()) missing.push(path);
  };
  check(type.name, type.description);
  if (isObjectType(type) || isInterfaceType(type)) {
    for (const field of Object.values(type.getFields())) {
      check(`${type.name}.${field.name}`, field.description);
      for (const arg of field.args) check(`${type.name}.${field.name}(${arg.name})`, arg.description);
    }
  } else if (isInputObjectType(type)) {
    for (const field of Object.values(type.getFields())) check(`${type.name}.${field.name}`, field.description);
  } else if (isEnumType(type)) {
    for (const value of type.getValues()) check(`${type.name}.${value.name}`, value.description);
  }
  return missing;
}

describe('schema descriptions', () => {
  const schema = makeExecutableSchema({ typeDefs, resolvers: scalarResolvers });
  const ownTypes = Object.values(schema.getTypeMap()).filter((type) => !isIntrospectionType(type) && !isSpecifiedScalarType(type));

  it('describe the schema, every type, field, argument, input field and enum value', () => {
    expect(ownTypes.length).toBeGreaterThan(30);
    expect(schema.description?.trim()).toBeTruthy();
    expect(ownTypes.flatMap(undocumented)).toEqual([]);
  });

  it('keep the SDL words and spec links on the custom scalars rather than graphql-scalars defaults', () => {
    const dateTime = schema.getType('DateTime');
    expect(dateTime?.description).toContain('RFC 3339');
    expect(dateTime && 'specifiedByURL' in dateTime ? dateTime.specifiedByURL : undefined).toBe(
      'https://datatracker.ietf.org/doc/html/rfc3339#section-5.6',
    );
    expect(schema.getType('IPv4')?.description).not.toContain('A field whose value');
  });
});

describe('the known protection services', () => {
  const schema = makeExecutableSchema({ typeDefs, resolvers: scalarResolvers });
  const known = ['waf', 'ddos', 'bot_protection', 'rate_limiting', 'api_protection', 'cdn'];

  it('are named wherever a services list is read or written', () => {
    const places: [string, string | null | undefined][] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!(isObjectType(type) || isInputObjectType(type)) || isIntrospectionType(type)) continue;
      for (const field of Object.values(type.getFields())) if (field.name === 'services') places.push([`${type.name}.services`, field.description]);
    }
    expect(places.map(([name]) => name).sort()).toEqual(['ProtectionDevice.services', 'ProtectionDeviceFilter.services', 'WebProtectionRecord.services', 'WebProtectionRecordInput.services']);
    for (const [name, description] of places) for (const service of known) expect(description, name).toContain(`\`${service}\``);
  });
});
