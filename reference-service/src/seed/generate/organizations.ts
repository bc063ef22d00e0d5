// The three demo organizations, their people and their demo API keys. Domains use the reserved
// `.example` top-level domain (RFC 2606) so that no demo address can reach a real mailbox or site.

import type { OrganizationRef } from '../../records.ts';
import type { ApiKey } from '../../storage/keys.ts';

export interface DemoOrganization extends OrganizationRef {
  /** Mail and web domain of the organization. */
  domain: string;
  /** Lower-case short name used in host names and keys. */
  slug: string;
  /** Region code in device ids (`ATB-EU-0001`). */
  region: string;
  /** First octets of the organization's private network (`10.20`, ...). */
  privateNet: string;
  /** People who submit evidence and manage records. */
  staff: readonly { name: string; email: string }[];
}

/** `Tomás Ortega` -> `tomas.ortega` */
function emailLocalPart(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, '.');
}

function org(
  id: number,
  name: string,
  slug: string,
  domain: string,
  region: string,
  privateNet: string,
  people: string[],
): DemoOrganization {
  return {
    id,
    name,
    logo: `https://assets.${domain}/brand/${slug}-logo.svg`,
    domain,
    slug,
    region,
    privateNet,
    staff: people.map((name) => ({
      name,
      email: `${emailLocalPart(name)}@${domain}`,
    })),
  };
}

export const ORGANIZATIONS: readonly DemoOrganization[] = [
  org(1, 'Acme Health Systems', 'acme', 'acmehealth.example', 'EU', '10.20', [
    'Claire Moreau',
    'Jonas Weber',
    'Priya Raman',
    'Tomás Ortega',
  ]),
  org(2, 'Northwind Logistics', 'northwind', 'northwind-logistics.example', 'US', '172.16', [
    'Megan Carter',
    'David Kim',
    'Aisha Bello',
    'Lucas Ferreira',
  ]),
  org(3, 'Globex Financial Services', 'globex', 'globex-financial.example', 'AP', '192.168', [
    'Hiro Tanaka',
    'Sofia Rossi',
    'Ethan Walsh',
    'Nadia Haddad',
  ]),
];

export function organizationRef(o: OrganizationRef): OrganizationRef {
  return { id: o.id, name: o.name, logo: o.logo };
}

export function organizationById(id: number): DemoOrganization {
  const found = ORGANIZATIONS[id - 1];
  if (found === undefined) throw new RangeError(`no demo organization ${id}`);
  return found;
}

/** Fixed, readable keys: the README lists them, and the seeding prints them. */
export const DEMO_API_KEYS: readonly ApiKey[] = [
  { key: 'demo-admin-key', organizationId: null, label: 'Demo admin key (all organizations)' },
  ...ORGANIZATIONS.map((o) => ({
    key: `demo-org${o.id}-key-${o.slug}`,
    organizationId: o.id,
    label: `Demo key for ${o.name}`,
  })),
];
