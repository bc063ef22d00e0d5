// Demo web protection records: four protected web applications per organization.

import type { WebProtectionRecord } from '../../records.ts';
import { WEB_PROTECTION_SERVICES } from '../../validation/web-protection.ts';
import { webStats } from './devices.ts';
import { ORGANIZATIONS, organizationRef } from './organizations.ts';
import { createRng, int, pick, sample, seedOf, weighted } from './rng.ts';
import { DEMO_END, epochSeconds, rfc3339 } from './time.ts';
import { publicAddress } from './network.ts';

const SUBDOMAINS: Record<number, readonly string[]> = {
  1: ['www', 'patients', 'api', 'careers'],
  2: ['www', 'track', 'api', 'partners'],
  3: ['www', 'online', 'api', 'status'],
};

export const WEB_PROTECTION_RECORD_COUNT = 12;

export function generateWebProtectionRecords(): WebProtectionRecord[] {
  const end = epochSeconds(DEMO_END);
  return Array.from({ length: WEB_PROTECTION_RECORD_COUNT }, (_, index) => {
    const id = index + 1;
    const org = ORGANIZATIONS[index % ORGANIZATIONS.length]!;
    const rng = createRng(seedOf(0x3eb, id));
    const sub = SUBDOMAINS[org.id]![Math.floor(index / ORGANIZATIONS.length)]!;
    // 1 = check passed, 0 = check failed (DNS not pointing at the proxy, origin unreachable, ...)
    const stat = {
      fqdn: weighted(rng, [1, 0], [9, 1]),
      proxy: weighted(rng, [1, 0], [9, 1]),
      endpoint: weighted(rng, [1, 0], [9, 1]),
      datetime: rfc3339(end - int(rng, 60, 3600)),
    };
    const services = sample(rng, WEB_PROTECTION_SERVICES, int(rng, 1, 4));
    return {
      id,
      organization: organizationRef(org),
      email: pick(rng, [`webops@${org.domain}`, org.staff[id % org.staff.length]!.email]),
      fqdn: `${sub}.${org.domain}`,
      check: {
        stat,
        // 1 = protected, 0 = a check is failing
        status: stat.fqdn && stat.proxy && stat.endpoint ? 1 : 0,
        web_stat: webStats(rng, end, int(rng, 20_000, 900_000)),
      },
      endpoint: publicAddress(0x10000 + id),
      services: sub === 'api' && !services.includes('api_protection') ? [...services, 'api_protection'] : services,
    };
  });
}
