// A route as the transport knows it, declared by a domain: its name for logs and metrics, its
// filled path, and how its v1 names read in GraphQL.
import { describe, expect, it } from 'vitest';
import { int } from '../../../../src/gateway/upstream/check.ts';
import { fieldOf } from '../../../../src/gateway/upstream/envelope.ts';
import { names } from '../../../../src/gateway/upstream/field-names.ts';
import { fillPath, route } from '../../../../src/gateway/upstream/routes.ts';

describe('route', () => {
  const edit = route('PUT', '/api/v1/organizations/{organizationid}/things/{id}', fieldOf('thing', int), names({ organizationid: 'organizationId', id: 'id' }));

  it('is named by its method and template, never by what a call fills in', () => {
    expect(edit.name).toBe('PUT /api/v1/organizations/{organizationid}/things/{id}');
    expect(edit.method).toBe('PUT');
    expect(edit.result({ thing: 3 })).toBe(3);
    expect(route('GET', '/api/v1/things', fieldOf('n', int))).not.toHaveProperty('fields');
  });

  it('fills its placeholders with values that cannot leave their segment', () => {
    expect(fillPath(edit, { organizationid: '1', id: '2' })).toBe('/api/v1/organizations/1/things/2');
    expect(fillPath(edit, { organizationid: '1/../2', id: '?x#y' })).toBe('/api/v1/organizations/1%2F..%2F2/things/%3Fx%23y');
    expect(fillPath(edit, { organizationid: '..', id: '.' })).toBe('/api/v1/organizations/%2E%2E/things/%2E');
    expect(() => fillPath(edit, { organizationid: '1' })).toThrow('Missing path parameter id for PUT /api/v1/organizations/{organizationid}/things/{id}');
  });
});

describe('names', () => {
  const fields = names({ organization: 'organizationId', title: 'input.title' }, { items: { path: 'input.items', fields: { id: 'itemId' } } });

  it('reads fixed names, and indexed body paths with their items’ fields', () => {
    expect(fields('organization')).toBe('organizationId');
    expect(fields('items.2')).toBe('input.items[2]');
    expect(fields('items.2.id')).toBe('input.items[2].itemId');
    expect(fields('items.0.evidence_type')).toBe('input.items[0].evidenceType');
    expect(fields('unknown')).toBeUndefined();
    expect(fields('others.1.id')).toBeUndefined();
  });
});
