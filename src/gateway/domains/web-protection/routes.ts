// The v1 routes of web protection records (rest-v1.md, operations 5–6): each with its result's
// check (from wire.ts), how its v1 names read in GraphQL, and what it does to the response cache.
import { fieldOf } from '../../upstream/envelope.ts';
import { names } from '../../upstream/field-names.ts';
import { route } from '../../upstream/routes.ts';
import { cacheRules } from '../../response-cache/rules.ts';
import { webProtectionRecord } from './wire.ts';

const RECORD = '/api/v1/cloud-defender/{id}';

export const webProtectionRoutes = {
  updateWebProtectionRecord: route(
    'PUT',
    RECORD,
    fieldOf('data', webProtectionRecord),
    names(
      { id: 'id', organization: 'input.organizationId', fqdn: 'input.fqdn', email: 'input.email', endpoint: 'input.endpoint', services: 'input.services' },
      { services: { path: 'input.services' } },
    ),
  ),
  deleteWebProtectionRecord: route('DELETE', RECORD, fieldOf('data', webProtectionRecord), names({ id: 'id' })),
};

// v1 has no read of web protection records, and no other answer holds them (a device is not a
// record). Should a read of them appear, these name its tags instead.
const NO_READ = 'v1 has no read of web protection records, and no other v1 answer holds them';

export const webProtectionCacheRules = cacheRules(webProtectionRoutes, {
  updateWebProtectionRecord: { noCachedRead: NO_READ },
  deleteWebProtectionRecord: { noCachedRead: NO_READ },
});
