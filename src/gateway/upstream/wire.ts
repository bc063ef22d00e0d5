// What the gateway expects of the v1 JSON (see ../shared/contract/rest-v1.md). These are the
// gateway's own declarations of the wire: it never imports the reference service's types, so the
// two halves share nothing but the HTTP contract. Codegen maps GraphQL types onto them.
export interface WireOrganizationRef {
  id: number;
  name: string;
  logo: string;
}

export interface WireEvidenceSubmitter {
  user_id: string;
  user_email: string;
}

export interface WireEvidence {
  files: string[];
  details: string;
  datetime: string;
  completed: number;
  residual_risk: number;
  submitted_by: WireEvidenceSubmitter;
}

export interface WireControl {
  id: string;
  type: string;
  title: string;
  weight: number;
  details: Record<string, unknown>;
  evidences: WireEvidence[];
  frequency: string;
  description: string;
  evidence_type: string;
}

export interface WireSecurityFramework {
  id: number;
  title: string;
  security_frameworks: WireControl[];
}

export interface WireWebStat {
  datetime: string;
  waf_protection: number;
  total_managed_requests: number;
}

export interface WireWebProtectionCheck {
  stat: { fqdn: number; proxy: number; endpoint: number; datetime: string };
  status: number;
  web_stat: WireWebStat[];
}

export interface WireWebProtectionRecord {
  id: number;
  organization: WireOrganizationRef;
  email: string;
  fqdn: string;
  check: WireWebProtectionCheck;
  endpoint: string;
  services: string[];
}

export interface WireChartBucket {
  bucket_start: number;
  bucket_end: number;
  total_requests: number;
  malicious_requests: number;
}

export interface WireDeviceCheck {
  stat: { vpn: number; dnsbl: number; iplist: number; datetime: string };
  status: number;
  web_stat: WireWebStat[];
  chart_stat: WireChartBucket[];
}

export interface WireProtectionDevice {
  id: number;
  organization: WireOrganizationRef;
  atb_key: string;
  type: string;
  email: string;
  check: WireDeviceCheck;
  plugin: { name: string; config: Record<string, unknown> };
  endpoint: string;
  privateIP: string;
  services: string[];
  device_id: string;
}

export interface WireTrafficLogEntry {
  id: number;
  date_time: string;
  type: string;
  src_ip: string;
  dest_ip: string;
  dest_port: string;
  log_message: string;
  extra: Record<string, string>;
}

/** A page of a v1 list operation (operations 2, 7 and 8). */
export interface WireList<T> {
  total: number;
  data: T[];
}
