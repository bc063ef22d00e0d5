// The pass-through's hand-written equivalent of the gateway's work for the benchmark's shapes:
// the v1 paths the gateway calls (per src/gateway/loaders.ts and resolvers/*), and the v1 JSON
// turned into the JSON of the GraphQL selections in shapes.ts (camelCase names, string ids,
// ISO timestamps with milliseconds, URLs normalised as graphql-scalars does). It declares its own
// view of the wire: the benchmark's pass-through shares no code with the gateway.

export interface V1Traffic {
  id: number;
  date_time: string;
  type: string;
  src_ip: string;
  dest_ip: string;
  dest_port: string;
  log_message: string;
  extra: Record<string, unknown>;
}

interface V1WebStat {
  datetime: string;
  waf_protection: number;
  total_managed_requests: number;
}

export interface V1Device {
  id: number;
  organization: { id: number; name: string; logo: string | null };
  atb_key: string;
  type: string;
  email: string;
  device_id: string;
  endpoint: string;
  privateIP: string;
  services: string[];
  check: {
    stat: { vpn: number; dnsbl: number; iplist: number; datetime: string };
    status: number;
    web_stat: V1WebStat[];
    chart_stat: { bucket_start: number; bucket_end: number; total_requests: number; malicious_requests: number }[];
  } | null;
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

/** The GraphQL `SecurityFrameworkInput` of shape 5. */
export interface FrameworkInput {
  title: string;
  controls: {
    id: string;
    type: string;
    title: string;
    weight: number;
    details: Record<string, unknown>;
    frequency: string;
    description: string;
    evidenceType: string;
  }[];
}

// --- The upstream calls, spelled as the gateway spells them ------------------------------------

const NEWEST_FIRST = 'order=-date_time';

export const v1Paths = {
  /** A traffic connection's page: `first: n` is `limit=n&offset=0&order=-date_time`. */
  traffic: (deviceId: string | number, limit: number) => `/api/v1/atb/${deviceId}/traffic?limit=${limit}&offset=0&${NEWEST_FIRST}`,
  /** A device connection's page (devicePages loader): `first: n` with an order field. */
  devices: (limit: number, order: string) => `/api/v1/atb?limit=${limit}&offset=0&order=${encodeURIComponent(order)}`,
  frameworks: (organizationId: string) => `/api/v1/organizations/${organizationId}/security-frameworks`,
  framework: (organizationId: string, id: string) => `/api/v1/organizations/${organizationId}/security-frameworks/${id}`,
};

// --- v1 JSON to the selections' JSON ------------------------------------------------------------

/** DateTime (graphql-scalars) serialises a Date: ISO with milliseconds. */
const iso = (value: string) => new Date(value).toISOString();
/** URL (graphql-scalars) serialises `new URL(value).toString()`. */
const url = (value: string | null) => (value === null ? null : new URL(value).toString());

export function trafficEntry(entry: V1Traffic) {
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

export function deviceWithCheck(device: V1Device) {
  const check = device.check;
  return {
    id: String(device.id),
    deviceId: device.device_id,
    type: device.type,
    email: device.email,
    endpoint: device.endpoint,
    privateIp: device.privateIP,
    atbKey: device.atb_key,
    services: device.services,
    organization: { id: String(device.organization.id), name: device.organization.name, logo: url(device.organization.logo) },
    check: check && {
      status: check.status,
      stat: { vpn: check.stat.vpn, dnsbl: check.stat.dnsbl, iplist: check.stat.iplist, datetime: iso(check.stat.datetime) },
      webStat: check.web_stat.map((stat) => ({
        datetime: iso(stat.datetime),
        wafProtection: stat.waf_protection,
        totalManagedRequests: stat.total_managed_requests,
      })),
      chartStat: check.chart_stat.map((bucket) => ({
        bucketStart: bucket.bucket_start,
        bucketEnd: bucket.bucket_end,
        totalRequests: bucket.total_requests,
        maliciousRequests: bucket.malicious_requests,
      })),
    },
  };
}

/** A control's own fields as GraphQL names them (the control type, and its input alike). */
function controlInput(control: V1Control): FrameworkInput['controls'][number] {
  return {
    id: control.id,
    type: control.type,
    title: control.title,
    weight: control.weight,
    details: control.details,
    frequency: control.frequency,
    description: control.description,
    evidenceType: control.evidence_type,
  };
}

export function framework(item: V1Framework) {
  return {
    id: String(item.id),
    title: item.title,
    controls: item.security_frameworks.map((control) => ({
      ...controlInput(control),
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

// --- Shape 5: the edit's input, both ways ---------------------------------------------------------

/** A framework's current content as the GraphQL input that leaves it as it is. */
export function frameworkInput(item: V1Framework): FrameworkInput {
  return {
    title: item.title,
    controls: item.security_frameworks.map(controlInput),
  };
}

/** The input as the v1 body (evidence belongs to the service: sent empty, as the gateway does). */
export function frameworkBody(input: FrameworkInput) {
  return {
    title: input.title,
    security_frameworks: input.controls.map((control) => ({
      id: control.id,
      type: control.type,
      title: control.title,
      weight: control.weight,
      details: control.details ?? {},
      evidences: [],
      frequency: control.frequency,
      description: control.description ?? '',
      evidence_type: control.evidenceType,
    })),
  };
}
