// The check of what the upstream sends back (rest-v1.md, "Envelope and errors"): the envelope, and
// the success shape of each operation, so that JSON which breaks the contract is refused here as
// UPSTREAM_BAD_RESPONSE rather than failing deep inside a resolver.
//
// Item checks follow the wire types (wire.ts) down to the leaves; a field that graphql.md makes
// nullable (e.g. `endpoint`, `check`, `residualRisk`, `destPort`, `logo`) may be null or absent.
// Fields the contract does not name are allowed (a newer upstream may add some).
import type {
  WireList,
  WireProtectionDevice,
  WireSecurityFramework,
  WireTrafficLogEntry,
  WireWebProtectionRecord,
} from './wire.ts';
import { normalizeMessages, type UpstreamDetail } from '../errors.ts';

/** The body breaks the contract; `reason` names the place and the expectation, never a value. */
export class ContractViolation extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ContractViolation';
  }
}

type Check = (value: unknown, path: string) => void;

function fail(path: string, expected: string): never {
  throw new ContractViolation(`${path || 'body'}: expected ${expected}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const int: Check = (v, p) => {
  if (!Number.isSafeInteger(v)) fail(p, 'an integer');
};
const num: Check = (v, p) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(p, 'a number');
};
const str: Check = (v, p) => {
  if (typeof v !== 'string') fail(p, 'a string');
};
const anyObject: Check = (v, p) => {
  if (!isObject(v)) fail(p, 'an object');
};
const nullable =
  (check: Check): Check =>
  (v, p) => {
    if (v !== null && v !== undefined) check(v, p);
  };
const arrayOf =
  (check: Check): Check =>
  (v, p) => {
    if (!Array.isArray(v)) fail(p, 'an array');
    for (let i = 0; i < v.length; i++) check(v[i], `${p}[${i}]`);
  };
const shape =
  (fields: Record<string, Check>): Check =>
  (v, p) => {
    if (!isObject(v)) fail(p, 'an object');
    for (const name in fields) fields[name]!(v[name], p ? `${p}.${name}` : name);
  };

const organizationRef = shape({ id: int, name: str, logo: nullable(str) });

const evidence = shape({
  files: arrayOf(str),
  details: nullable(str),
  datetime: str,
  completed: int,
  residual_risk: nullable(num),
  submitted_by: shape({ user_id: str, user_email: str }),
});

const control = shape({
  id: str,
  type: str,
  title: str,
  weight: num,
  details: anyObject,
  evidences: arrayOf(evidence),
  frequency: str,
  description: str,
  evidence_type: str,
});

const securityFramework = shape({ id: int, title: str, security_frameworks: arrayOf(control) });

const webStat = shape({ datetime: str, waf_protection: num, total_managed_requests: num });

const webProtectionRecord = shape({
  id: int,
  organization: organizationRef,
  email: nullable(str),
  fqdn: str,
  check: nullable(
    shape({
      stat: shape({ fqdn: int, proxy: int, endpoint: int, datetime: str }),
      status: int,
      web_stat: arrayOf(webStat),
    }),
  ),
  endpoint: nullable(str),
  services: arrayOf(str),
});

const protectionDevice = shape({
  id: int,
  organization: organizationRef,
  atb_key: nullable(str),
  type: str,
  email: str,
  check: nullable(
    shape({
      stat: shape({ vpn: int, dnsbl: int, iplist: int, datetime: str }),
      status: int,
      web_stat: arrayOf(webStat),
      chart_stat: arrayOf(shape({ bucket_start: int, bucket_end: int, total_requests: int, malicious_requests: int })),
    }),
  ),
  plugin: nullable(shape({ name: str, config: anyObject })),
  endpoint: nullable(str),
  privateIP: nullable(str),
  services: arrayOf(str),
  device_id: str,
});

const trafficLogEntry = shape({
  id: int,
  date_time: str,
  type: str,
  src_ip: str,
  dest_ip: str,
  dest_port: nullable(str),
  log_message: str,
  extra: anyObject,
});

// ---------------------------------------------------------------------------------------------

/** The body as a JSON object, or undefined when it is not one (not JSON, an array, a number…). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The envelope of a 2xx body: `error` must be an integer; `messages`, when present, an array
 * (an absent `messages` is tolerated as `[]`).
 */
export function checkEnvelope(body: Record<string, unknown>): void {
  int(body.error, 'error');
  if (body.messages !== undefined && !Array.isArray(body.messages)) fail('messages', 'an array');
}

/** What `extensions.upstream` says of a failed response; `body` undefined when it was not JSON. */
export function upstreamDetail(status: number, body: Record<string, unknown> | undefined): UpstreamDetail {
  const error = body !== undefined && Number.isSafeInteger(body.error) ? (body.error as number) : null;
  return { status, error, messages: normalizeMessages(body?.messages) };
}

/** A success body's check: returns the operation's result, or throws ContractViolation. */
export type SuccessCheck<T> = (body: Record<string, unknown>) => T;

const list =
  <T>(item: Check): SuccessCheck<WireList<T>> =>
  (body) => {
    if (!Number.isSafeInteger(body.total) || (body.total as number) < 0) fail('total', 'a non-negative integer');
    arrayOf(item)(body.data, 'data');
    return { total: body.total as number, data: body.data as T[] };
  };

const field =
  <T>(name: string, check: Check): SuccessCheck<T> =>
  (body) => {
    check(body[name], name);
    return body[name] as T;
  };

const positiveInt: Check = (v, p) => {
  if (!Number.isSafeInteger(v) || (v as number) < 1) fail(p, 'a positive integer');
};

export const expectSecurityFrameworkList = list<WireSecurityFramework>(securityFramework);
export const expectCreatedId = field<number>('security_framework', positiveInt);
export const expectSecurityFramework = field<WireSecurityFramework>('security_framework', securityFramework);
export const expectWebProtectionRecord = field<WireWebProtectionRecord>('data', webProtectionRecord);
export const expectProtectionDeviceList = list<WireProtectionDevice>(protectionDevice);
export const expectTrafficList = list<WireTrafficLogEntry>(trafficLogEntry);
