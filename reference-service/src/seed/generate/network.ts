// Where a device sits on the network, as a pure function of its id: the device records and the
// traffic generator both need it (traffic to device 7 goes to device 7's addresses), and the
// traffic generator only knows device ids.

import { organizationById, type DemoOrganization } from './organizations.ts';

/** Public /16s the demo endpoints live in. */
const PUBLIC_NETS = ['185.143', '91.198', '45.83', '194.61', '80.241', '103.21', '146.190', '62.210'];

/** How devices spread over the organizations: 3 : 2 : 1, and all three from the third device on. */
const ORG_CYCLE = [1, 2, 3, 1, 2, 1];

export interface DeviceNetwork {
  organization: DemoOrganization;
  /** `ATB-EU-0007` */
  deviceId: string;
  /** `atb-eu-0007`, the host name in syslog lines */
  hostname: string;
  /** public address */
  endpoint: string;
  /** the device's own address on the organization's private network */
  privateIP: string;
  /** first three octets of the device's private /24, with the trailing dot */
  privatePrefix: string;
}

export function hash32(n: number): number {
  let h = Math.imul(n ^ 0x5bd1e995, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A public-looking address derived from a number, last octet 1..254. */
export function publicAddress(n: number): string {
  const h = hash32(n);
  return `${PUBLIC_NETS[h % PUBLIC_NETS.length]}.${(h >>> 8) & 255}.${1 + ((h >>> 16) % 254)}`;
}

export function deviceNetwork(id: number): DeviceNetwork {
  const organization = organizationById(ORG_CYCLE[(id - 1) % ORG_CYCLE.length] as number);
  const deviceId = `ATB-${organization.region}-${String(id).padStart(4, '0')}`;
  const privatePrefix = `${organization.privateNet}.${(id % 250) + 1}.`;
  return {
    organization,
    deviceId,
    hostname: deviceId.toLowerCase(),
    endpoint: publicAddress(id),
    privateIP: `${privatePrefix}1`,
    privatePrefix,
  };
}
