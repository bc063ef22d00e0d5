// What each v1 operation means for the response cache: the tags a read's answer carries, and the
// tags a mutation invalidates (for every key: a tag names data, not a caller). A route missing here
// is a compile error, so a new operation cannot forget to say what it does to the cache.
import type { CallInput } from '../upstream/call-types.ts';
import { routes, type Route } from '../upstream/routes.ts';

type RouteName = keyof typeof routes;

export type CacheRule =
  /** A read: cached under these tags. */
  | { read: (input: CallInput) => readonly string[] }
  /** A mutation: never cached; these tags are invalidated once it was sent, whatever its outcome. */
  | { invalidates: (input: CallInput) => readonly string[] };

/** All frameworks, of every organization: what a create without an organization invalidates. */
const FRAMEWORKS = 'frameworks';
const frameworksOf = (organization: string | null | undefined) => (organization ? `${FRAMEWORKS}:${organization}` : FRAMEWORKS);

export const CACHE_RULES = {
  listSecurityFrameworks: { read: ({ params }) => [FRAMEWORKS, frameworksOf(params?.organizationid)] },
  // An organization key creates in its own organization, which the gateway does not know: every
  // organization's lists go (a rare write; the next read of each costs one call).
  createSecurityFramework: { invalidates: ({ query }) => [frameworksOf(query?.get('organization'))] },
  updateSecurityFramework: { invalidates: ({ params }) => [frameworksOf(params?.organizationid)] },
  deleteSecurityFramework: { invalidates: ({ params }) => [frameworksOf(params?.organizationid)] },
  // v1 has no read of web protection records, and no other answer holds them (a device is not a
  // record): nothing cached changes with them. Should a read of them appear, its tag goes here.
  updateWebProtectionRecord: { invalidates: () => [] },
  deleteWebProtectionRecord: { invalidates: () => [] },
  // Devices and traffic change only behind the gateway's back (v1 has no operation for either):
  // the TTL alone bounds how old they are.
  listProtectionDevices: { read: () => ['devices'] },
  listTraffic: { read: () => ['traffic'] },
} satisfies Record<RouteName, CacheRule>;

const RULES = new Map<Route<unknown>, CacheRule>(Object.entries(routes).map(([name, route]) => [route, CACHE_RULES[name as RouteName]]));

/** The rule of a route of the table (routes.ts). */
export function cacheRuleOf(route: Route<unknown>): CacheRule | undefined {
  return RULES.get(route);
}
