// The web protection records of the v1 wire (rest-v1.md, operations 5–6): each check declares
// what the gateway accepts of the JSON and, through Infer, the type resolvers see.
import { arrayOf, int, nullable, shape, str, type Infer } from '../../upstream/check.ts';
import { organizationRef, webStat } from '../common/wire.ts';

export const webProtectionCheckStat = shape({ fqdn: int, proxy: int, endpoint: int, datetime: str });
export type WireWebProtectionCheckStat = Infer<typeof webProtectionCheckStat>;

export const webProtectionCheck = shape({ stat: webProtectionCheckStat, status: int, web_stat: arrayOf(webStat) });
export type WireWebProtectionCheck = Infer<typeof webProtectionCheck>;

export const webProtectionRecord = shape({
  id: int,
  organization: organizationRef,
  email: nullable(str),
  fqdn: str,
  check: nullable(webProtectionCheck),
  endpoint: nullable(str),
  services: arrayOf(str),
});
export type WireWebProtectionRecord = Infer<typeof webProtectionRecord>;
