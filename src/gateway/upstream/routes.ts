// The eight v1 operations (rest-v1.md, "Operations") as a typed route table: method, path template
// and the check of a success body, whose type is the operation's result. The domains declare the
// wire records; their operations.ts fill a route's parameters. The template is also the route's
// name in logs and metrics: it never carries an id, a query or the key.
import { securityFramework } from '../domains/security-frameworks/wire.ts';
import { webProtectionRecord } from '../domains/web-protection/wire.ts';
import { protectionDevice, trafficLogEntry } from '../domains/protection-devices/wire.ts';
import { positiveInt } from './check.ts';
import { fieldOf, listOf, type ResultCheck } from './envelope.ts';
import { FIELD_NAMES, type FieldNames } from './field-names.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Route<T> {
  readonly method: HttpMethod;
  readonly template: string;
  /** `GET /api/v1/atb/{id}/traffic`: how a call is named in `onCall`, logs and metrics. */
  readonly name: string;
  readonly result: ResultCheck<T>;
  /** How v1's names of this call's parameters and body read in GraphQL, for error messages. */
  readonly fields?: FieldNames;
}

function route<T>(method: HttpMethod, template: string, result: ResultCheck<T>, fields?: FieldNames): Route<T> {
  return { method, template, name: `${method} ${template}`, result, ...(fields ? { fields } : {}) };
}

const frameworkPath = '/api/v1/organizations/{organizationid}/security-frameworks/{frameworkid}';

export const routes = {
  createSecurityFramework: route('POST', '/api/v1/V-Ciso/security-frameworks', fieldOf('security_framework', positiveInt), FIELD_NAMES.createSecurityFramework),
  listSecurityFrameworks: route('GET', '/api/v1/organizations/{organizationid}/security-frameworks', listOf(securityFramework), FIELD_NAMES.listSecurityFrameworks),
  updateSecurityFramework: route('PUT', frameworkPath, fieldOf('security_framework', securityFramework), FIELD_NAMES.updateSecurityFramework),
  deleteSecurityFramework: route('DELETE', frameworkPath, fieldOf('security_framework', securityFramework), FIELD_NAMES.deleteSecurityFramework),
  updateWebProtectionRecord: route('PUT', '/api/v1/cloud-defender/{id}', fieldOf('data', webProtectionRecord), FIELD_NAMES.updateWebProtectionRecord),
  deleteWebProtectionRecord: route('DELETE', '/api/v1/cloud-defender/{id}', fieldOf('data', webProtectionRecord), FIELD_NAMES.deleteWebProtectionRecord),
  listProtectionDevices: route('GET', '/api/v1/atb', listOf(protectionDevice), FIELD_NAMES.listProtectionDevices),
  listTraffic: route('GET', '/api/v1/atb/{id}/traffic', listOf(trafficLogEntry), FIELD_NAMES.listTraffic),
} as const;

/** A path segment that cannot escape its place: `/`, `?`, `#` encoded, and `.`/`..` made literal. */
function segment(value: string): string {
  if (value === '.' || value === '..') return value.replaceAll('.', '%2E');
  return encodeURIComponent(value);
}

/** The template with its `{name}` placeholders filled, each value URL-encoded. */
export function fillPath(route: Route<unknown>, params: Record<string, string> = {}): string {
  return route.template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`Missing path parameter ${name} for ${route.name}`);
    return segment(value);
  });
}
