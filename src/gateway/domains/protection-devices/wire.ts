// The protection devices and traffic log entries of the v1 wire (rest-v1.md, operations 7–8):
// each check declares what the gateway accepts of the JSON and, through Infer, the type resolvers see.
import { anyObject, arrayOf, int, nullable, shape, str, type Infer } from '../../upstream/check.ts';
import { chartBucket, organizationRef, webStat } from '../common/wire.ts';

export const deviceCheckStat = shape({ vpn: int, dnsbl: int, iplist: int, datetime: str });
export type WireDeviceCheckStat = Infer<typeof deviceCheckStat>;

export const deviceCheck = shape({ stat: deviceCheckStat, status: int, web_stat: arrayOf(webStat), chart_stat: arrayOf(chartBucket) });
export type WireDeviceCheck = Infer<typeof deviceCheck>;

export const devicePlugin = shape({ name: str, config: anyObject });
export type WireDevicePlugin = Infer<typeof devicePlugin>;

export const protectionDevice = shape({
  id: int,
  organization: organizationRef,
  atb_key: nullable(str),
  type: str,
  email: str,
  check: nullable(deviceCheck),
  plugin: nullable(devicePlugin),
  endpoint: nullable(str),
  privateIP: nullable(str),
  services: arrayOf(str),
  device_id: str,
});
export type WireProtectionDevice = Infer<typeof protectionDevice>;

export const trafficLogEntry = shape({
  id: int,
  date_time: str,
  type: str,
  src_ip: str,
  dest_ip: str,
  dest_port: nullable(str),
  log_message: str,
  extra: anyObject,
});
export type WireTrafficLogEntry = Infer<typeof trafficLogEntry>;
