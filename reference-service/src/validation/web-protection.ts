import type { WebProtectionPatch } from '../storage/web-protection.ts';
import { validationFailed } from '../http/errors.ts';
import { Problems, characterLength, isPlainObject } from './problems.ts';

/**
 * *Reference only*: the services a web protection record may activate. The demo devices draw
 * theirs from it too.
 */
export const WEB_PROTECTION_SERVICES: readonly string[] = [
  'waf',
  'ddos',
  'bot_protection',
  'rate_limiting',
  'api_protection',
  'cdn',
];

const FIELDS: ReadonlySet<string> = new Set(['organization', 'fqdn', 'email', 'endpoint', 'services']);

// RFC 1123 labels: letters, digits and inner hyphens, 1-63 characters.
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
// The same address syntax as JSON Schema's `email` format (ajv-formats, full mode).
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function isHostname(text: string): boolean {
  return text.length <= 253 && text.includes('.') && text.split('.').every((label) => LABEL.test(label));
}

export function isEmail(text: string): boolean {
  return text.length <= 254 && EMAIL.test(text);
}

export function isIPv4(text: string): boolean {
  return IPV4.test(text);
}

/**
 * The body of a web protection edit: any of its five fields, each checked; throws one 400
 * listing every problem. The organization's existence and the key's right to it are the
 * caller's to check.
 */
export function parseWebProtectionPatch(body: unknown): WebProtectionPatch {
  if (!isPlainObject(body)) throw validationFailed('The request body must be a JSON object.');
  const problems = new Problems();
  problems.unknownFields(body, FIELDS, '');
  const patch: WebProtectionPatch = {};

  const { organization, fqdn, email, endpoint, services } = body;
  if (organization !== undefined) {
    if (typeof organization === 'number' && Number.isSafeInteger(organization) && organization > 0) {
      patch.organizationId = organization;
    } else problems.invalid('organization', 'organization must be a positive integer.');
  }
  if (fqdn !== undefined) {
    if (typeof fqdn === 'string' && isHostname(fqdn)) patch.fqdn = fqdn;
    else {
      problems.invalid(
        'fqdn',
        'fqdn must be a host name of dot-separated labels (letters, digits, inner hyphens; at most 63 characters each), with at least one dot and at most 253 characters.',
      );
    }
  }
  if (email !== undefined) {
    if (typeof email === 'string' && isEmail(email)) patch.email = email;
    else problems.invalid('email', 'email must be an e-mail address.');
  }
  if (endpoint !== undefined) {
    if (typeof endpoint === 'string' && isIPv4(endpoint)) patch.endpoint = endpoint;
    else problems.invalid('endpoint', 'endpoint must be an IPv4 address in dotted-quad form.');
  }
  if (services !== undefined) {
    if (!Array.isArray(services)) problems.invalid('services', 'services must be an array.');
    else if (services.length > WEB_PROTECTION_SERVICES.length) {
      // Longer than any valid list: one message, items not examined (a megabyte of bad items
      // would otherwise answer one message each).
      problems.invalid('services', `services must list distinct values of ${WEB_PROTECTION_SERVICES.join(', ')}: at most ${WEB_PROTECTION_SERVICES.length}, got ${services.length}.`);
    } else {
      const seen = new Set<string>();
      const before = problems.count;
      services.forEach((service: unknown, index) => {
        const field = `services.${index}`;
        if (typeof service !== 'string' || !WEB_PROTECTION_SERVICES.includes(service)) {
          const shown = typeof service === 'string' && characterLength(service) <= 100 ? `"${service}" ` : '';
          problems.invalid(field, `${field} ${shown}is not one of ${WEB_PROTECTION_SERVICES.join(', ')}.`);
        } else if (seen.has(service)) {
          problems.invalid(field, `${field} repeats "${service}".`);
        } else seen.add(service);
      });
      if (problems.count === before) patch.services = [...seen];
    }
  }
  problems.throwIfAny();
  return patch;
}
