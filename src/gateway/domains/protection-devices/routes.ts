// The v1 routes of protection devices and their traffic (rest-v1.md, operations 7–8): each with
// its result's check (from wire.ts), how its v1 names read in GraphQL, and what it does to the
// response cache.
import { listOf } from '../../upstream/envelope.ts';
import { names } from '../../upstream/field-names.ts';
import { route } from '../../upstream/routes.ts';
import { cacheRules } from '../../response-cache/rules.ts';
import { protectionDevice, trafficLogEntry } from './wire.ts';

const PAGE = { limit: 'first', offset: 'after', order: 'orderBy' };

export const deviceRoutes = {
  listProtectionDevices: route(
    'GET',
    '/api/v1/atb',
    listOf(protectionDevice),
    names({ ...PAGE, organization: 'filter.organizationId', services: 'filter.services', 'services[]': 'filter.services' }),
  ),
  listTraffic: route(
    'GET',
    '/api/v1/atb/{id}/traffic',
    listOf(trafficLogEntry),
    names({ ...PAGE, id: 'deviceId', search: 'filter.search', actions: 'filter.actions', 'actions[]': 'filter.actions' }),
  ),
};

/** What `/readyz` reads to learn whether the upstream is up: a page of one device, cheap for v1. */
export const READINESS_PROBE = `${deviceRoutes.listProtectionDevices.template}?limit=1`;

export const deviceCacheRules = cacheRules(deviceRoutes, {
  // The TTL alone bounds how old they are served.
  listProtectionDevices: { read: () => ['devices'], changedOnlyUpstream: 'v1 has no operation that changes a device' },
  listTraffic: { read: () => ['traffic'], changedOnlyUpstream: 'traffic is written by the devices, never through v1' },
});
