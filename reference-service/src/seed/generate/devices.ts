// Demo protection devices. Each device draws from its own seeded stream, so device n is the same
// whatever the number of devices asked for.

import type { ChartBucket, ProtectionDevice, WebStat } from '../../records.ts';
import { WEB_PROTECTION_SERVICES } from '../../validation/web-protection.ts';
import { deviceNetwork, type DeviceNetwork } from './network.ts';
import { organizationRef } from './organizations.ts';
import { chance, createRng, int, pick, sample, seedOf, uuidV4, weighted, type Rng } from './rng.ts';
import { DAY, DEMO_END, HOUR, epochSeconds, rfc3339 } from './time.ts';

const DEVICE_TYPES = ['edge-gateway', 'waf-appliance', 'ids-sensor', 'firewall'] as const;
type DeviceType = (typeof DEVICE_TYPES)[number];

/** Services that a device of each type always runs, before extra ones are drawn. */
const CORE_SERVICES: Record<DeviceType, readonly string[]> = {
  'edge-gateway': ['cdn'],
  'waf-appliance': ['waf'],
  'ids-sensor': ['bot_protection'],
  firewall: ['ddos'],
};

function plugin(rng: Rng, type: DeviceType, net: DeviceNetwork): ProtectionDevice['plugin'] {
  switch (type) {
    case 'edge-gateway':
      return {
        name: 'nginx-edge',
        config: {
          version: pick(rng, ['1.26.2', '1.27.3', '1.28.0']),
          mode: 'reverse_proxy',
          upstreams: Array.from({ length: int(rng, 1, 3) }, (_, i) => `${net.privatePrefix}${10 + i}:8080`),
          tls: { min_version: 'TLSv1.2', hsts: true },
          log_format: 'combined',
          client_max_body_size: pick(rng, ['1m', '8m', '32m']),
        },
      };
    case 'waf-appliance':
      return {
        name: 'modsecurity-crs',
        config: {
          engine: weighted(rng, ['On', 'DetectionOnly'], [4, 1]),
          crs_version: pick(rng, ['3.3.5', '4.3.0', '4.8.0']),
          paranoia_level: int(rng, 1, 3),
          anomaly_threshold: { inbound: pick(rng, [5, 7, 10]), outbound: 4 },
          excluded_rules: sample(rng, [920350, 942430, 941100, 913101], int(rng, 0, 2)),
        },
      };
    case 'ids-sensor':
      return {
        name: 'suricata',
        config: {
          version: pick(rng, ['7.0.7', '7.0.8', '8.0.0']),
          mode: weighted(rng, ['ids', 'ips'], [2, 1]),
          ruleset: pick(rng, ['et-open', 'et-pro']),
          home_net: `[${net.privatePrefix}0/24]`,
          interfaces: chance(rng, 0.5) ? ['eth1'] : ['eth1', 'eth2'],
          rule_update_hours: pick(rng, [6, 12, 24]),
        },
      };
    case 'firewall':
      return {
        name: 'ufw',
        config: {
          default_incoming: 'deny',
          default_outgoing: 'allow',
          logging: pick(rng, ['low', 'medium']),
          allowed_ports: sample(rng, [22, 80, 443, 1194, 8443], int(rng, 2, 4)),
          rate_limit: { ssh: '6/30s' },
        },
      };
  }
}

/** Daily figures for the week before the demo's "now". */
export function webStats(rng: Rng, end: number, scale: number): WebStat[] {
  const lastMidnight = Math.floor(end / DAY) * DAY;
  return Array.from({ length: 7 }, (_, i) => {
    const total = Math.round(scale * (0.7 + rng.next() * 0.6));
    return {
      datetime: rfc3339(lastMidnight - (6 - i) * DAY),
      waf_protection: Math.round(total * (0.01 + rng.next() * 0.07)),
      total_managed_requests: total,
    };
  });
}

/** Hourly buckets for the 24 hours before the demo's "now", with a day/night rhythm. */
function chartStats(rng: Rng, end: number, scale: number): ChartBucket[] {
  const lastHour = Math.floor(end / HOUR) * HOUR;
  return Array.from({ length: 24 }, (_, i) => {
    const start = lastHour - (23 - i) * HOUR;
    const hourOfDay = (start % DAY) / HOUR;
    const rhythm = 0.55 + 0.45 * Math.sin(((hourOfDay - 8) / 24) * 2 * Math.PI);
    const total = Math.round(scale * rhythm * (0.8 + rng.next() * 0.4));
    return {
      bucket_start: start,
      bucket_end: start + HOUR,
      total_requests: total,
      malicious_requests: Math.round(total * (0.005 + rng.next() * 0.05)),
    };
  });
}

export function generateDevice(id: number): ProtectionDevice {
  const rng = createRng(seedOf(0xde71ce, id));
  const net = deviceNetwork(id);
  const type = weighted(rng, DEVICE_TYPES, [3, 3, 2, 2]);
  const end = epochSeconds(DEMO_END);
  const status = weighted(rng, [1, 2, 0], [16, 2, 1]); // 1 online, 2 degraded, 0 offline
  const hourly = int(rng, 400, 20_000);
  const extra = sample(
    rng,
    WEB_PROTECTION_SERVICES.filter((s) => !CORE_SERVICES[type].includes(s)),
    int(rng, 0, 4 - CORE_SERVICES[type].length),
  );
  const staff = pick(rng, net.organization.staff);
  return {
    id,
    organization: organizationRef(net.organization),
    atb_key: uuidV4(rng),
    type,
    email: chance(rng, 0.5) ? `secops@${net.organization.domain}` : staff.email,
    check: {
      stat: {
        vpn: int(rng, 0, 6),
        dnsbl: weighted(rng, [0, 1, 2], [12, 2, 1]),
        iplist: int(rng, 800, 60_000),
        datetime: rfc3339(end - (status === 0 ? int(rng, 2, 48) * HOUR : int(rng, 30, 900))),
      },
      status,
      web_stat: webStats(rng, end, hourly * 24),
      chart_stat: chartStats(rng, end, hourly),
    },
    plugin: plugin(rng, type, net),
    endpoint: net.endpoint,
    privateIP: net.privateIP,
    services: WEB_PROTECTION_SERVICES.filter((s) => CORE_SERVICES[type].includes(s) || extra.includes(s)),
    device_id: net.deviceId,
  };
}
