// The eight v1 operations as method + path template (rest-v1.md, "Operations"). The template is
// also the route's name in logs and metrics: it never carries an id, a query or the key.
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Route {
  method: HttpMethod;
  template: string;
}

export const routes = {
  createSecurityFramework: { method: 'POST', template: '/api/v1/V-Ciso/security-frameworks' },
  listSecurityFrameworks: { method: 'GET', template: '/api/v1/organizations/{organizationid}/security-frameworks' },
  updateSecurityFramework: {
    method: 'PUT',
    template: '/api/v1/organizations/{organizationid}/security-frameworks/{frameworkid}',
  },
  deleteSecurityFramework: {
    method: 'DELETE',
    template: '/api/v1/organizations/{organizationid}/security-frameworks/{frameworkid}',
  },
  updateWebProtectionRecord: { method: 'PUT', template: '/api/v1/cloud-defender/{id}' },
  deleteWebProtectionRecord: { method: 'DELETE', template: '/api/v1/cloud-defender/{id}' },
  listProtectionDevices: { method: 'GET', template: '/api/v1/atb' },
  listTraffic: { method: 'GET', template: '/api/v1/atb/{id}/traffic' },
} as const satisfies Record<string, Route>;

/** `GET /api/v1/atb/{id}/traffic`: how a call is named in `onCall`, logs and metrics. */
export function routeName(route: Route): string {
  return `${route.method} ${route.template}`;
}

/** A path segment that cannot escape its place: `/`, `?`, `#` encoded, and `.`/`..` made literal. */
function segment(value: string): string {
  if (value === '.' || value === '..') return value.replaceAll('.', '%2E');
  return encodeURIComponent(value);
}

/** The template with its `{name}` placeholders filled, each value URL-encoded. */
export function fillPath(route: Route, params: Record<string, string> = {}): string {
  return route.template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`Missing path parameter ${name} for ${routeName(route)}`);
    return segment(value);
  });
}
