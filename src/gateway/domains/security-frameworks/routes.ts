// The v1 routes of security frameworks (rest-v1.md, operations 1–4): each with its result's check
// (from wire.ts), how its v1 names read in GraphQL, and what it does to the response cache.
import { positiveInt } from '../../upstream/check.ts';
import { fieldOf, listOf } from '../../upstream/envelope.ts';
import { names } from '../../upstream/field-names.ts';
import { route } from '../../upstream/routes.ts';
import { cacheRules } from '../../response-cache/rules.ts';
import { securityFramework } from './wire.ts';

const FRAMEWORKS = '/api/v1/organizations/{organizationid}/security-frameworks';
const FRAMEWORK = `${FRAMEWORKS}/{frameworkid}`;

const CONTROLS = { security_frameworks: { path: 'input.controls', fields: { id: 'controlId' } } };
const FRAMEWORK_INPUT = { title: 'input.title', security_frameworks: 'input.controls' };
const FRAMEWORK_PATH = { organizationid: 'organizationId', frameworkid: 'id' };

export const frameworkRoutes = {
  listSecurityFrameworks: route('GET', FRAMEWORKS, listOf(securityFramework), names({ organizationid: 'organizationId' })),
  createSecurityFramework: route(
    'POST',
    '/api/v1/V-Ciso/security-frameworks',
    fieldOf('security_framework', positiveInt),
    names({ organization: 'organizationId', ...FRAMEWORK_INPUT }, CONTROLS),
  ),
  updateSecurityFramework: route('PUT', FRAMEWORK, fieldOf('security_framework', securityFramework), names({ ...FRAMEWORK_PATH, ...FRAMEWORK_INPUT }, CONTROLS)),
  deleteSecurityFramework: route('DELETE', FRAMEWORK, fieldOf('security_framework', securityFramework), names(FRAMEWORK_PATH)),
};

/** Every organization's frameworks: what a create without an organization invalidates. */
const ALL = 'frameworks';
const ofOrganization = (organization: string | null | undefined) => (organization ? `${ALL}:${organization}` : ALL);

export const frameworkCacheRules = cacheRules(frameworkRoutes, {
  listSecurityFrameworks: {
    read: ({ params }) => [ALL, ofOrganization(params?.organizationid)],
    invalidatedBy: ['createSecurityFramework', 'updateSecurityFramework', 'deleteSecurityFramework'],
  },
  // An organization key creates in its own organization, which the gateway does not know: every
  // organization's lists go (a rare write; the next read of each costs one call).
  createSecurityFramework: { invalidates: ({ query }) => [ofOrganization(query?.get('organization'))] },
  updateSecurityFramework: { invalidates: ({ params }) => [ofOrganization(params?.organizationid)] },
  deleteSecurityFramework: { invalidates: ({ params }) => [ofOrganization(params?.organizationid)] },
});
