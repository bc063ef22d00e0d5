// The compiler checks the resolver map (src/gateway/domains/checked-resolvers.ts): a field whose
// GraphQL name or type differs from its wire record's needs a resolver, and leaving it out fails
// `npm run typecheck`, which `npm test` runs over this file. The `@ts-expect-error` lines below are
// that proof: were a dropped resolver to compile, the directive itself would fail the type check.
import { describe, expect, it } from 'vitest';
import type { CheckedResolvers } from '../../../src/gateway/domains/checked-resolvers.ts';
import { resolvers } from '../../../src/gateway/domains/index.ts';

describe('the resolver map is checked by the compiler', () => {
  it('refuses a map without a rename resolver (privateIp from the wire privateIP)', () => {
    const { privateIp, ...rest } = resolvers.ProtectionDevice;
    // @ts-expect-error privateIp has no wire property of that name: its resolver is required
    const dropped = { ...resolvers, ProtectionDevice: rest } satisfies CheckedResolvers;
    expect(Object.keys(dropped.ProtectionDevice)).not.toContain('privateIp');
    expect(privateIp).toBeTypeOf('function');
  });

  it('refuses a map without a type that needs resolvers at all (DeviceCheck)', () => {
    const { DeviceCheck, ...rest } = resolvers;
    // @ts-expect-error DeviceCheck.webStat and chartStat come from snake_case wire fields
    const dropped = rest satisfies CheckedResolvers;
    expect(dropped).not.toHaveProperty('DeviceCheck');
    expect(DeviceCheck).toBeDefined();
  });

  it('refuses a map without a root field resolver', () => {
    const { protectionDevice, ...query } = resolvers.Query;
    // @ts-expect-error every root field needs a resolver (its parent is the empty root value)
    const dropped = { ...resolvers, Query: query } satisfies CheckedResolvers;
    expect(dropped.Query).not.toHaveProperty('protectionDevice');
    expect(protectionDevice).toBeTypeOf('function');
  });

  it('accepts the gateway map, with no resolver for a field read as it is (ProtectionDevice.type)', () => {
    const map: CheckedResolvers = resolvers;
    expect(map.ProtectionDevice).not.toHaveProperty('type');
  });
});
