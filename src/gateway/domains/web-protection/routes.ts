// The v1 routes of web protection records (rest-v1.md, operations 5–6, and the reference service's
// read extensions E1–E2): each with its result's check (from wire.ts), how its v1 names read in
// GraphQL, and what it does to the response cache.
import { fieldOf, listOf } from '../../upstream/envelope.ts';
import { names } from '../../upstream/field-names.ts';
import { route } from '../../upstream/routes.ts';
import { cacheRules } from '../../response-cache/rules.ts';
import { webProtectionRecord } from './wire.ts';

const RECORD = '/api/v1/cloud-defender/{id}';

export const webProtectionRoutes = {
  // Extensions: a deployment with only the seed's operations answers 404 (no such route) to the
  // list and 405 (the path is known for PUT and DELETE) to the read (read-support.ts).
  listWebProtectionRecords: route('GET', '/api/v1/cloud-defender', listOf(webProtectionRecord), names({ limit: 'first', offset: 'after' })),
  getWebProtectionRecord: route('GET', RECORD, fieldOf('data', webProtectionRecord), names({ id: 'id' })),
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

/** Every list page (an edit can move a record between organizations, so all of them), and one record. */
const LISTS = 'web-protection';
const recordTag = (id: string | undefined) => `web-protection:${id ?? ''}`;

export const webProtectionCacheRules = cacheRules(webProtectionRoutes, {
  listWebProtectionRecords: { read: () => [LISTS], invalidatedBy: ['updateWebProtectionRecord', 'deleteWebProtectionRecord'] },
  getWebProtectionRecord: { read: ({ params }) => [recordTag(params?.id)], invalidatedBy: ['updateWebProtectionRecord', 'deleteWebProtectionRecord'] },
  updateWebProtectionRecord: { invalidates: ({ params }) => [LISTS, recordTag(params?.id)] },
  deleteWebProtectionRecord: { invalidates: ({ params }) => [LISTS, recordTag(params?.id)] },
});
