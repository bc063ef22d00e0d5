// Operation files as tools, without a server: names, descriptions from leading comments, input
// schemas from variables (formats, enums, nested and self-containing input objects, defaults,
// required, SDL descriptions), fragments across files, and trusted documents matched by shape.
import { readFileSync } from 'node:fs';
import { buildSchema as buildSdl } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../../src/gateway/domains/index.ts';
import { loadTools, type OperationSource } from '../../../src/gateway/mcp/operations.ts';
import { bearerChallenge, protectedResourceMetadata, protectedResourceMetadataUrl } from '../../../src/gateway/mcp/protected-resource.ts';

const gatewaySchema = buildSchema();

const SMALL = buildSdl(`
  "A moment, RFC 3339."
  scalar DateTime
  scalar Mystery
  "How to sort."
  enum Direction {
    "Smallest first."
    ASC
    "Largest first."
    DESC
    OLD @deprecated(reason: "gone")
  }
  "A tree of conditions."
  input Condition {
    "Conditions that must all hold."
    all: [Condition!]
    "Not before this moment."
    since: DateTime
    direction: Direction = DESC
    "How many, at most."
    limit: Int! = 10
    name: String!
  }
  type Query {
    "Things that match."
    things(
      "What they must match."
      where: Condition
      "When."
      at: DateTime!
      anything: Mystery
      order: Direction
    ): [String]
  }
`);

const source = (text: string, label = 'ops.graphql'): OperationSource => ({ label, text });

describe('input schemas', () => {
  it('derive types, formats, enums, nesting, defaults, required and descriptions', () => {
    const { tools } = loadTools([source('query Things($where: Condition, $at: DateTime!, $raw: Mystery, $order: Direction = ASC) { things(where: $where, at: $at, anything: $raw, order: $order) }')], {
      schema: SMALL,
      allowMutations: false,
    });
    const schema = tools[0]!.inputSchema as any;
    expect(schema.required).toEqual(['at']);
    expect(schema.properties.at).toEqual({ type: 'string', format: 'date-time', description: 'When.' });
    expect(schema.properties.raw).toEqual({});
    expect(schema.properties.order).toEqual({
      type: 'string',
      enum: ['ASC', 'DESC'],
      default: 'ASC',
      description: 'How to sort.\nASC: Smallest first.\nDESC: Largest first.',
    });
    const where = schema.properties.where;
    expect(where.description).toBe('What they must match.');
    expect(where.required).toEqual(['name']);
    expect(where.additionalProperties).toBe(false);
    expect(where.properties.limit).toEqual({ type: 'integer', minimum: -2147483648, maximum: 2147483647, description: 'How many, at most.', default: 10 });
    expect(where.properties.direction.default).toBe('DESC');
    expect(where.properties.since.format).toBe('date-time');
    // The type contains itself: described once, then left open.
    expect(where.properties.all).toEqual({ type: 'array', items: { type: 'object', description: 'A tree of conditions.' }, description: 'Conditions that must all hold.' });
  });

  it('of the gateway\'s own mutation inputs: nested lists of input objects with their rules', () => {
    const { tools } = loadTools([source('mutation Create($input: SecurityFrameworkInput!, $organizationId: ID) { createSecurityFramework(input: $input, organizationId: $organizationId) { id } }')], {
      schema: gatewaySchema,
      allowMutations: true,
    });
    const schema = tools[0]!.inputSchema as any;
    expect(schema.required).toEqual(['input']);
    const control = schema.properties.input.properties.controls.items;
    expect(control.required.sort()).toEqual(['controlId', 'evidenceType', 'frequency', 'title', 'type', 'weight']);
    expect(control.properties.weight.type).toBe('number');
    expect(control.properties.details).toMatchObject({ type: 'object' });
    expect(control.properties.frequency.description).toMatch(/cron fields/);
    expect(schema.properties.organizationId.description).toMatch(/Required with an admin key/);
    expect(tools[0]!.annotations).toEqual({ title: 'Create', readOnlyHint: false, destructiveHint: false });
  });
});

describe('tools', () => {
  it('take the leading comment right above the operation as their description', () => {
    const text = '# A header, not about any tool.\n\n# Counts the devices.\n# Every one the key sees.\nquery Count { protectionDevices { totalCount } }\n\nquery Bare { protectionDevices { totalCount } }\n';
    const { tools } = loadTools([source(text)], { schema: gatewaySchema, allowMutations: false });
    expect(tools.map((tool) => [tool.name, tool.description])).toEqual([
      ['Count', 'Counts the devices.\nEvery one the key sees.'],
      ['Bare', expect.stringMatching(/^The protection devices the key can see/)],
    ]);
    expect(tools[0]!.annotations).toEqual({ title: 'Count', readOnlyHint: true });
  });

  it('carry the fragments they use, from any file, and only those', () => {
    const { tools } = loadTools(
      [
        source('fragment DeviceBits on ProtectionDevice { id deviceId }\nfragment Unused on ProtectionDevice { type }', 'fragments.graphql'),
        source('query One($id: ID!) { protectionDevice(id: $id) { ...DeviceBits } }', 'one.graphql'),
      ],
      { schema: gatewaySchema, allowMutations: false },
    );
    expect(tools[0]!.document).toContain('fragment DeviceBits');
    expect(tools[0]!.document).not.toContain('Unused');
  });

  it('leave mutations out unless allowed, and match trusted documents by shape, not by spacing', () => {
    const text = 'query Count { protectionDevices { totalCount } }\nmutation Drop($id: ID!) { deleteWebProtectionRecord(id: $id) { webProtectionRecord { id } } }';
    expect(loadTools([source(text)], { schema: gatewaySchema, allowMutations: false })).toMatchObject({ mutationsLeftOut: ['Drop'] });
    const trustedText = 'query   Count {\n protectionDevices {\n totalCount\n }\n}';
    const trusted = loadTools([source(text)], { schema: gatewaySchema, allowMutations: true, trusted: [trustedText, 'not graphql {'], untrusted: 'leave out' });
    expect(trusted.tools.map((tool) => [tool.name, tool.document])).toEqual([['Count', trustedText]]);
    expect(trusted.untrustedLeftOut).toEqual(['Drop']);
    expect(() => loadTools([source(text)], { schema: gatewaySchema, allowMutations: true, trusted: [trustedText], untrusted: 'stop' })).toThrow(
      /^MCP_OPERATIONS: ops\.graphql:2: operation "Drop" is not a trusted document/,
    );
  });

  it('refuse what cannot be a tool with one line naming it', () => {
    const refuse = (text: string) => () => loadTools([source(text)], { schema: gatewaySchema, allowMutations: false });
    expect(refuse('type Device { id: ID }')).toThrow(/^MCP_OPERATIONS: ops\.graphql:1: only operations and fragments belong in an operation file/);
    expect(refuse('fragment A on Organization { id }\nfragment A on Organization { name }')).toThrow(/ops\.graphql:2: fragment "A" is defined twice/);
    expect(refuse('query Vars($n: Nope) { protectionDevices { totalCount } }')).toThrow(/operation "Vars" is invalid: Unknown type "Nope"/);
  });
});

describe('the 401 challenge and protected resource metadata (RFC 9728)', () => {
  it('names the metadata beside the resource\'s path when a sign-in can follow, and the issuer as its server', () => {
    const resource = new URL('https://gateway.example/mcp');
    expect(protectedResourceMetadataUrl(resource)).toBe('https://gateway.example/.well-known/oauth-protected-resource/mcp');
    expect(bearerChallenge()).toBe('Bearer');
    expect(bearerChallenge('Bearer', 'https://gateway.example/.well-known/oauth-protected-resource')).toBe('Bearer resource_metadata="https://gateway.example/.well-known/oauth-protected-resource"');
    expect(bearerChallenge('Bearer error="invalid_token", error_description="expired"', 'https://gateway.example/.well-known/oauth-protected-resource')).toBe(
      'Bearer error="invalid_token", error_description="expired", resource_metadata="https://gateway.example/.well-known/oauth-protected-resource"',
    );
    expect(protectedResourceMetadata(resource, 'https://id.example/realms/soc', ['devices:read'])).toEqual({
      resource: 'https://gateway.example/mcp',
      authorization_servers: ['https://id.example/realms/soc'],
      bearer_methods_supported: ['header'],
      scopes_supported: ['devices:read'],
    });
  });
});

describe('the assistants\' guide (docs/mcp.md)', () => {
  const section = readFileSync(new URL('../../../docs/mcp.md', import.meta.url), 'utf8');

  it('shows an operation file that loads as a tool, with its comment as description', () => {
    const text = /```graphql\n([\s\S]*?)```/.exec(section)![1]!;
    const { tools } = loadTools([source(text)], { schema: gatewaySchema, allowMutations: false });
    expect(tools).toHaveLength(1);
    expect(tools[0]!.description).toMatch(/^One organization's protection devices/);
  });

  it('shows a desktop client configuration that is JSON naming /mcp and the key header', () => {
    const config = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]!);
    const server = config.mcpServers['security-gateway'];
    expect(server.args).toContain('http://localhost:4000/mcp');
    expect(server.args.join(' ')).toMatch(/X-Service-Token/);
  });
});
