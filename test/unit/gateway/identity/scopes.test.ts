// The scope checks of `@requiresScopes` and the organization boundary, as the SDL declares them.
import { describe, expect, it } from 'vitest';
import { userCaller, keyCaller } from '../../../../src/gateway/identity/caller.ts';
import { credentialOfConnectionParams, credentialOfHeaders } from '../../../../src/gateway/identity/credential.ts';
import { hasScopes, refusalFor, requiredScopesOf } from '../../../../src/gateway/identity/scopes.ts';
import { looksLikeJwt } from '../../../../src/gateway/identity/tokens.ts';
import { declared } from '../../../../src/gateway/schema.ts';

const user = (scopes: string[], organizationId = '1', admin = false) =>
  userCaller('org-key', { sub: 'u', organizationId, scopes: new Set(scopes), admin, expiresAt: Date.now() + 60_000 });

describe('@requiresScopes', () => {
  it('is on every field that calls upstream, with the contract’s scopes', () => {
    expect(Object.fromEntries(requiredScopesOf(declared))).toEqual({
      'Query.securityFrameworks': [['frameworks:read']],
      'Query.securityFramework': [['frameworks:read']],
      'Query.protectionDevices': [['devices:read']],
      'Query.protectionDevice': [['devices:read']],
      'Query.trafficLog': [['traffic:read']],
      'ProtectionDevice.traffic': [['traffic:read']],
      'Subscription.trafficLogEntryAdded': [['traffic:read']],
      'Mutation.createSecurityFramework': [['frameworks:write']],
      'Mutation.updateSecurityFramework': [['frameworks:write']],
      'Mutation.deleteSecurityFramework': [['frameworks:write']],
      'Mutation.updateWebProtectionRecord': [['web-protection:write']],
      'Mutation.deleteWebProtectionRecord': [['web-protection:write']],
      'Mutation.createTrafficExport': [['traffic:export']],
    });
  });

  it('means any of the outer list, all of an inner one', () => {
    expect(hasScopes(new Set(['a', 'b']), [['a', 'b']])).toBe(true);
    expect(hasScopes(new Set(['a']), [['a', 'b']])).toBe(false);
    expect(hasScopes(new Set(['c']), [['a', 'b'], ['c']])).toBe(true);
  });

  it('refuses a user without the scope, or naming another organization; never a key, never admin', () => {
    expect(refusalFor(user(['devices:read']), [['frameworks:read']], {})?.extensions).toEqual({ code: 'FORBIDDEN', requiredScopes: [['frameworks:read']] });
    expect(refusalFor(user(['frameworks:read']), [['frameworks:read']], { organizationId: '1' })).toBeUndefined();
    expect(refusalFor(user(['frameworks:read']), [['frameworks:read']], { organizationId: '2' })?.extensions.code).toBe('FORBIDDEN');
    expect(refusalFor(user(['devices:read']), [['devices:read']], { filter: { organizationId: 2 } })?.extensions.code).toBe('FORBIDDEN');
    expect(refusalFor(user(['web-protection:write']), undefined, { input: { organizationId: '3' } })?.extensions.code).toBe('FORBIDDEN');
    expect(refusalFor(user([], '1', true), [['frameworks:read']], { organizationId: '2' })).toBeUndefined();
    expect(refusalFor(keyCaller('k'), [['frameworks:read']], { organizationId: '2' })).toBeUndefined();
  });

  it('partitions the cache by organization and scope set, and throttles by user', () => {
    const a = user(['b', 'a']);
    const b = { ...user(['a', 'b']), bucket: userCaller('org-key', { sub: 'other', organizationId: '1', scopes: new Set(['a', 'b']), admin: false, expiresAt: 0 }).bucket };
    expect(a.partition).toBe(b.partition);
    expect(a.bucket).not.toBe(b.bucket);
    expect(user(['a', 'b'], '2').partition).not.toBe(a.partition);
    expect(keyCaller('org-key').partition).not.toBe(a.partition);
  });
});

describe('credentials', () => {
  it('are read from X-Service-Token or a Bearer authorization, in any case, also nested in connection params', () => {
    expect(credentialOfHeaders({ 'X-Service-Token': ' k ' })).toEqual({ kind: 'service-token', value: 'k' });
    expect(credentialOfHeaders({ authorization: 'bearer t' })).toEqual({ kind: 'bearer', value: 't' });
    expect(credentialOfHeaders({ authorization: 'Basic x' })).toBeNull();
    expect(credentialOfConnectionParams({ headers: { Authorization: 'Bearer t' } })).toEqual({ kind: 'bearer', value: 't' });
    expect(credentialOfConnectionParams(undefined)).toBeNull();
  });

  it('tell a JWT (alg none included) from a key', () => {
    expect(looksLikeJwt('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.')).toBe(true);
    expect(looksLikeJwt('a.b.c')).toBe(true);
    expect(looksLikeJwt('test-org1-key-1111')).toBe(false);
  });
});
