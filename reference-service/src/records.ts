// The records of the v1 service exactly as they travel on the wire (snake_case, `privateIP`).
// Storage, seeding and the HTTP routes of the reference service all speak these shapes.

export interface OrganizationRef {
  id: number;
  name: string;
  logo: string;
}

export interface EvidenceSubmitter {
  user_id: string;
  user_email: string;
}

export interface Evidence {
  files: string[];
  details: string;
  datetime: string;
  completed: number;
  residual_risk: number;
  submitted_by: EvidenceSubmitter;
}

export interface Control {
  id: string;
  type: string;
  title: string;
  weight: number;
  details: Record<string, unknown>;
  evidences: Evidence[];
  frequency: string;
  description: string;
  evidence_type: string;
}

export interface SecurityFramework {
  id: number;
  title: string;
  security_frameworks: Control[];
}

export interface WebStat {
  datetime: string;
  waf_protection: number;
  total_managed_requests: number;
}

export interface WebProtectionCheck {
  stat: { fqdn: number; proxy: number; endpoint: number; datetime: string };
  status: number;
  web_stat: WebStat[];
}

export interface WebProtectionRecord {
  id: number;
  organization: OrganizationRef;
  email: string;
  fqdn: string;
  check: WebProtectionCheck;
  endpoint: string;
  services: string[];
}

export interface ChartBucket {
  bucket_start: number;
  bucket_end: number;
  total_requests: number;
  malicious_requests: number;
}

export interface DeviceCheck {
  stat: { vpn: number; dnsbl: number; iplist: number; datetime: string };
  status: number;
  web_stat: WebStat[];
  chart_stat: ChartBucket[];
}

export interface ProtectionDevice {
  id: number;
  organization: OrganizationRef;
  atb_key: string;
  type: string;
  email: string;
  check: DeviceCheck;
  plugin: { name: string; config: Record<string, unknown> };
  endpoint: string;
  privateIP: string;
  services: string[];
  device_id: string;
}

export interface TrafficLogEntry {
  id: number;
  date_time: string;
  type: string;
  src_ip: string;
  dest_ip: string;
  dest_port: string;
  log_message: string;
  extra: Record<string, string>;
}

/** One item of `messages` in a failure envelope. */
export interface EnvelopeMessage {
  code: string;
  message: string;
  field?: string;
}
