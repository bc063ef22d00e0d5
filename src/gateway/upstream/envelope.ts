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

type Check = (value: unknown) => void;

/**
 * A value below the checked one breaks the contract. Its place is put together on the way out
 * (each level adds its field name or index), so a body that keeps the contract, the common case,
 * costs no path string per value.
 */
class Mismatch {
  path = '';
  constructor(readonly expected: string) {}
}

function fail(expected: string): never {
  throw new Mismatch(expected);
}

/** `error`, when it is a Mismatch, with `segment` (a field name, or `[i]`) in front of its path. */
function within(segment: string, error: unknown): unknown {
  if (error instanceof Mismatch) {
    const below = error.path;
    error.path = below === '' ? segment : below.startsWith('[') ? segment + below : `${segment}.${below}`;
  }
  return error;
}

/** Runs `check` on a top-level value named `name`: a mismatch becomes the ContractViolation naming its place. */
function checkAt(name: string, check: Check, value: unknown): void {
  try {
    check(value);
  } catch (error) {
    if (!(error instanceof Mismatch)) throw error;
    within(name, error);
    throw new ContractViolation(`${error.path || 'body'}: expected ${error.expected}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const int: Check = (v) => {
  if (!Number.isSafeInteger(v)) fail('an integer');
};
const num: Check = (v) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail('a number');
};
const str: Check = (v) => {
  if (typeof v !== 'string') fail('a string');
};
const anyArray: Check = (v) => {
  if (!Array.isArray(v)) fail('an array');
};
const anyObject: Check = (v) => {
  if (!isObject(v)) fail('an object');
};
const nullable =
  (check: Check): Check =>
  (v) => {
    if (v !== null && v !== undefined) check(v);
  };
const arrayOf =
  (check: Check): Check =>
  (v) => {
    if (!Array.isArray(v)) fail('an array');
    let i = 0;
    try {
      for (; i < v.length; i++) check(v[i]);
    } catch (error) {
      throw within(`[${i}]`, error);
    }
  };
const shape = (fields: Record<string, Check>): Check => {
  const names = Object.keys(fields);
  const checks = names.map((name) => fields[name]!);
  return (v) => {
    if (!isObject(v)) fail('an object');
    let i = 0;
    try {
      for (; i < names.length; i++) checks[i]!(v[names[i]!]);
    } catch (error) {
      throw within(names[i]!, error);
    }
  };
};

const organizationRef = shape({ id: int, name: str, logo: nullable(str) });

const evidence = shape({
  files: arrayOf(str),
  details: str,
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
  checkAt('error', int, body.error);
  if (body.messages !== undefined) checkAt('messages', anyArray, body.messages);
}

/** What `extensions.upstream` says of a failed response; `body` undefined when it was not JSON. */
export function upstreamDetail(status: number, body: Record<string, unknown> | undefined): UpstreamDetail {
  const error = body !== undefined && Number.isSafeInteger(body.error) ? (body.error as number) : null;
  return { status, error, messages: normalizeMessages(body?.messages) };
}

/** A success body's check: returns the operation's result, or throws ContractViolation. */
export type SuccessCheck<T> = (body: Record<string, unknown>) => T;

const nonNegativeInt: Check = (v) => {
  if (!Number.isSafeInteger(v) || (v as number) < 0) fail('a non-negative integer');
};

const list = <T>(item: Check): SuccessCheck<WireList<T>> => {
  const items = arrayOf(item);
  return (body) => {
    checkAt('total', nonNegativeInt, body.total);
    checkAt('data', items, body.data);
    return { total: body.total as number, data: body.data as T[] };
  };
};

const field =
  <T>(name: string, check: Check): SuccessCheck<T> =>
  (body) => {
    checkAt(name, check, body[name]);
    return body[name] as T;
  };

const positiveInt: Check = (v) => {
  if (!Number.isSafeInteger(v) || (v as number) < 1) fail('a positive integer');
};

export const expectSecurityFrameworkList = list<WireSecurityFramework>(securityFramework);
export const expectCreatedId = field<number>('security_framework', positiveInt);
export const expectSecurityFramework = field<WireSecurityFramework>('security_framework', securityFramework);
export const expectWebProtectionRecord = field<WireWebProtectionRecord>('data', webProtectionRecord);
export const expectProtectionDeviceList = list<WireProtectionDevice>(protectionDevice);
export const expectTrafficList = list<WireTrafficLogEntry>(trafficLogEntry);
