// The one oracle of what the gateway must answer: a v1 wire record (rest-v1.md) turned into the
// GraphQL object graphql.md describes, every field of it. The suites compare the gateway's answers
// with it, and the benchmark's pass-through answers with it, so that a change to the contract is
// made here once. It declares its own view of the wire: the tests share no code with the gateway.

export interface V1OrganizationRef {
  id: number;
  name: string;
  logo: string | null;
}

interface V1WebStat {
  datetime: string;
  waf_protection: number;
  total_managed_requests: number;
}

export interface V1Traffic {
  id: number;
  date_time: string;
  type: string;
  src_ip: string;
  dest_ip: string;
  dest_port: string | null;
  log_message: string;
  extra: Record<string, unknown>;
}

export interface V1Device {
  id: number;
  organization: V1OrganizationRef;
  atb_key: string | null;
  type: string;
  email: string;
  device_id: string;
  endpoint: string | null;
  privateIP: string | null;
  services: string[];
  check: {
    stat: { vpn: number; dnsbl: number; iplist: number; datetime: string };
    status: number;
    web_stat: V1WebStat[];
    chart_stat: { bucket_start: number; bucket_end: number; total_requests: number; malicious_requests: number }[];
  } | null;
  plugin: { name: string; config: Record<string, unknown> } | null;
}

export interface V1WebProtectionRecord {
  id: number;
  organization: V1OrganizationRef;
  email: string | null;
  fqdn: string;
  check: {
    stat: { fqdn: number; proxy: number; endpoint: number; datetime: string };
    status: number;
    web_stat: V1WebStat[];
  } | null;
  endpoint: string | null;
  services: string[];
}

interface V1Evidence {
  files: string[];
  details: string;
  datetime: string;
  completed: number;
  residual_risk: number | null;
  submitted_by: { user_id: string; user_email: string };
}

export interface V1Control {
  id: string;
  type: string;
  title: string;
  weight: number;
  details: Record<string, unknown>;
  evidences: V1Evidence[];
  frequency: string;
  description: string;
  evidence_type: string;
}

export interface V1Framework {
  id: number;
  title: string;
  security_frameworks: V1Control[];
}

export interface V1List<T> {
  total: number;
  data: T[];
}

/** DateTime (graphql-scalars) serialises a Date: ISO with milliseconds. */
export const iso = (value: string) => new Date(value).toISOString();
/** URL (graphql-scalars) serialises `new URL(value).toString()`. */
const url = (value: string | null) => (value === null ? null : new URL(value).toString());

export function organization(ref: V1OrganizationRef) {
  return { id: String(ref.id), name: ref.name, logo: url(ref.logo) };
}

function webStat(stat: V1WebStat) {
  return { datetime: iso(stat.datetime), wafProtection: stat.waf_protection, totalManagedRequests: stat.total_managed_requests };
}

export function trafficLogEntry(entry: V1Traffic) {
  return {
    id: String(entry.id),
    dateTime: iso(entry.date_time),
    type: entry.type,
    srcIp: entry.src_ip,
    destIp: entry.dest_ip,
    destPort: entry.dest_port,
    logMessage: entry.log_message,
    extra: entry.extra,
  };
}

/** A device's own fields and its organization: what a selection without its check or plugin reads. */
export function deviceFields(device: V1Device) {
  return {
    id: String(device.id),
    deviceId: device.device_id,
    type: device.type,
    email: device.email,
    endpoint: device.endpoint,
    privateIp: device.privateIP,
    atbKey: device.atb_key,
    services: device.services,
    organization: organization(device.organization),
  };
}

export function protectionDevice(device: V1Device) {
  const check = device.check;
  return {
    ...deviceFields(device),
    check: check && {
      status: check.status,
      stat: { vpn: check.stat.vpn, dnsbl: check.stat.dnsbl, iplist: check.stat.iplist, datetime: iso(check.stat.datetime) },
      webStat: check.web_stat.map(webStat),
      chartStat: check.chart_stat.map((bucket) => ({
        bucketStart: bucket.bucket_start,
        bucketEnd: bucket.bucket_end,
        totalRequests: bucket.total_requests,
        maliciousRequests: bucket.malicious_requests,
      })),
    },
    plugin: device.plugin && { name: device.plugin.name, config: device.plugin.config },
  };
}

export function webProtectionRecord(record: V1WebProtectionRecord) {
  const check = record.check;
  return {
    id: String(record.id),
    organization: organization(record.organization),
    email: record.email,
    fqdn: record.fqdn,
    check: check && {
      stat: { fqdn: check.stat.fqdn, proxy: check.stat.proxy, endpoint: check.stat.endpoint, datetime: iso(check.stat.datetime) },
      status: check.status,
      webStat: check.web_stat.map(webStat),
    },
    endpoint: record.endpoint,
    services: record.services,
  };
}

/**
 * Control.id: opaque, unique across all controls. The oracle spells out what the gateway encodes
 * (base64url of `["Control", frameworkId, controlId]`) so that the pass-through can answer the same.
 */
export function controlNodeId(frameworkId: number, controlId: string): string {
  return Buffer.from(JSON.stringify(['Control', frameworkId, controlId])).toString('base64url');
}

/** A control's own fields as GraphQL names them (the control type, and its input alike). */
export function controlFields(control: V1Control) {
  return {
    controlId: control.id,
    type: control.type,
    title: control.title,
    weight: control.weight,
    details: control.details,
    frequency: control.frequency,
    description: control.description,
    evidenceType: control.evidence_type,
  };
}

export function securityFramework(item: V1Framework) {
  return {
    id: String(item.id),
    title: item.title,
    controls: item.security_frameworks.map((control) => ({
      id: controlNodeId(item.id, control.id),
      ...controlFields(control),
      evidences: control.evidences.map((evidence) => ({
        files: evidence.files,
        details: evidence.details,
        datetime: iso(evidence.datetime),
        completed: evidence.completed,
        residualRisk: evidence.residual_risk,
        submittedBy: { userId: evidence.submitted_by.user_id, userEmail: evidence.submitted_by.user_email },
      })),
    })),
  };
}
