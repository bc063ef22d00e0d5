// The demo data generators are pure functions, so this suite calls them directly: no server.

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SEED_SIZES,
  createRng,
  generateDemoData,
  generateTraffic,
  makeLiveTrafficEntry,
} from '../src/seed/generate.ts';
import type { NewTrafficEntry as GeneratedTraffic } from '../src/storage/traffic.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const EMAIL = /^[a-z0-9._%+-]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/;
const RFC3339_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const SERVICES = ['waf', 'ddos', 'bot_protection', 'rate_limiting', 'api_protection', 'cdn'];
const ACTIONS = ['allow', 'block', 'challenge', 'log'];
const EVIDENCE_TYPES = ['document', 'screenshot', 'attestation', 'automated_check'];
const FILE_PATH =
  /^\/api\/v1\/documents\/organizations\/(\d+)\/security-frameworks\/(\d+)\/documents\/([^/]+)\/([^/]+)$/;

function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

function isPrivateIPv4(s: string): boolean {
  const [a, b] = s.split('.').map(Number) as [number, number];
  return isIPv4(s) && (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168));
}

function isTimestamp(s: unknown): boolean {
  return typeof s === 'string' && RFC3339_Z.test(s) && !Number.isNaN(Date.parse(s));
}

function isFqdn(s: string): boolean {
  const labels = s.split('.');
  return (
    s.length <= 253 &&
    labels.length >= 2 &&
    labels.every((l) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i.test(l))
  );
}

/** The contract's cron rule: five fields of `*`, n, a-b, * /n, a-b/n or comma lists, in bounds. */
function isCron(expr: string): boolean {
  const bounds: [number, number][] = [[0, 59], [0, 23], [1, 31], [1, 12], [0, 7]];
  const fields = expr.split(' ');
  if (fields.length !== 5) return false;
  return fields.every((field, i) => {
    const [lo, hi] = bounds[i]!;
    const inRange = (n: string) => /^\d+$/.test(n) && Number(n) >= lo && Number(n) <= hi;
    return field.split(',').every((item) => {
      const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
      if (m === null) return false;
      const [, whole, a, b, step] = m;
      if (step !== undefined && (!/^\d+$/.test(step) || Number(step) < 1)) return false;
      if (whole === '*') return true;
      if (!inRange(a!)) return false;
      if (b !== undefined) return inRange(b) && Number(a) <= Number(b);
      return step === undefined;
    });
  });
}

function take<T>(items: Iterable<T>, n: number): T[] {
  const out: T[] = [];
  if (n <= 0) return out;
  for (const item of items) {
    out.push(item);
    if (out.length >= n) break;
  }
  return out;
}

describe('generateDemoData', () => {
  const data = generateDemoData();

  it('is deterministic', () => {
    expect(JSON.stringify(generateDemoData())).toBe(JSON.stringify(data));
    expect(JSON.stringify(generateDemoData({ devices: 5 }))).toBe(JSON.stringify(generateDemoData({ devices: 5 })));
  });

  it('keeps device n the same whatever the number of devices', () => {
    expect(generateDemoData({ devices: 3 }).devices).toEqual(data.devices.slice(0, 3));
  });

  it('has three organizations and a key for each plus an admin key', () => {
    expect(data.organizations.map((o) => o.id)).toEqual([1, 2, 3]);
    for (const o of data.organizations) {
      expect(o.name.length).toBeGreaterThan(3);
      expect(new URL(o.logo).protocol).toBe('https:');
    }
    expect(data.apiKeys.filter((k) => k.organizationId === null)).toHaveLength(1);
    expect(data.apiKeys.map((k) => k.organizationId).filter((id) => id !== null).sort()).toEqual([1, 2, 3]);
    expect(new Set(data.apiKeys.map((k) => k.key)).size).toBe(data.apiKeys.length);
    for (const k of data.apiKeys) expect(k.key).toMatch(/^demo-[a-z0-9-]+$/);
  });

  it('builds frameworks whose controls and evidences follow the contract', () => {
    expect(data.frameworks).toHaveLength(6);
    expect(data.frameworks.map((f) => f.framework.id)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const orgId of [1, 2, 3]) expect(data.frameworks.filter((f) => f.organizationId === orgId)).toHaveLength(2);
    let evidenceCount = 0;
    for (const { organizationId, framework } of data.frameworks) {
      expect(framework.title.length).toBeGreaterThan(0);
      expect(framework.title.length).toBeLessThanOrEqual(200);
      const controls = framework.security_frameworks;
      expect(controls.length).toBeGreaterThanOrEqual(6);
      expect(controls.length).toBeLessThanOrEqual(15);
      expect(new Set(controls.map((c) => c.id)).size).toBe(controls.length);
      for (const c of controls) {
        expect(c.id).toMatch(/^(A\.\d+\.\d+|[A-Z]{2}\.[A-Z]{2}-\d+|CIS-\d+\.\d+)$/);
        expect(c.type).toBe('control');
        expect(c.title.length).toBeGreaterThan(0);
        expect(Number.isFinite(c.weight) && c.weight >= 0).toBe(true);
        expect(typeof c.details === 'object' && c.details !== null && !Array.isArray(c.details)).toBe(true);
        expect(isCron(c.frequency), c.frequency).toBe(true);
        expect(c.description.length).toBeGreaterThan(0);
        expect(EVIDENCE_TYPES).toContain(c.evidence_type);
        expect(c.evidences.length).toBeLessThanOrEqual(3);
        for (const e of c.evidences) {
          evidenceCount++;
          expect(e.files.length).toBeGreaterThan(0);
          for (const file of e.files) {
            const m = FILE_PATH.exec(file);
            expect(m, file).not.toBeNull();
            expect([Number(m![1]), Number(m![2]), m![3]]).toEqual([organizationId, framework.id, c.id]);
          }
          expect(e.details.length).toBeGreaterThan(0);
          expect(isTimestamp(e.datetime)).toBe(true);
          expect([0, 1]).toContain(e.completed);
          expect(e.residual_risk).toBeGreaterThanOrEqual(0);
          expect(e.residual_risk).toBeLessThanOrEqual(1);
          expect(e.submitted_by.user_id).toMatch(UUID_V4);
          expect(e.submitted_by.user_email).toMatch(EMAIL);
        }
      }
    }
    expect(evidenceCount).toBeGreaterThan(20);
  });

  it('builds a dozen web protection records', () => {
    const records = data.webProtectionRecords;
    expect(records.map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    for (const r of records) {
      expect(data.organizations).toContainEqual(r.organization);
      expect(r.email).toMatch(EMAIL);
      expect(isFqdn(r.fqdn), r.fqdn).toBe(true);
      expect(isIPv4(r.endpoint)).toBe(true);
      expect(r.services.length).toBeGreaterThan(0);
      expect(new Set(r.services).size).toBe(r.services.length);
      for (const s of r.services) expect(SERVICES).toContain(s);
      for (const k of ['fqdn', 'proxy', 'endpoint'] as const) expect(Number.isInteger(r.check.stat[k])).toBe(true);
      expect(isTimestamp(r.check.stat.datetime)).toBe(true);
      expect(Number.isInteger(r.check.status)).toBe(true);
      expect(r.check.web_stat.length).toBeGreaterThan(0);
      for (const w of r.check.web_stat) {
        expect(isTimestamp(w.datetime)).toBe(true);
        expect(typeof w.waf_protection).toBe('number');
        expect(typeof w.total_managed_requests).toBe('number');
      }
    }
    expect(new Set(records.map((r) => r.fqdn)).size).toBe(records.length);
  });

  it('builds the requested number of devices over the three organizations', () => {
    const devices = data.devices;
    expect(devices).toHaveLength(DEFAULT_SEED_SIZES.devices);
    expect(devices.map((d) => d.id)).toEqual(devices.map((_, i) => i + 1));
    expect(new Set(devices.map((d) => d.organization.id))).toEqual(new Set([1, 2, 3]));
    expect(new Set(devices.map((d) => d.type)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(devices.map((d) => d.device_id)).size).toBe(devices.length);
    expect(new Set(devices.map((d) => d.atb_key)).size).toBe(devices.length);
    for (const d of devices) {
      expect(data.organizations).toContainEqual(d.organization);
      expect(d.atb_key).toMatch(UUID_V4);
      expect(d.email).toMatch(EMAIL);
      expect(d.device_id).toMatch(/^ATB-[A-Z]{2}-\d{4}$/);
      expect(isIPv4(d.endpoint)).toBe(true);
      expect(isPrivateIPv4(d.privateIP), d.privateIP).toBe(true);
      expect(d.services.length).toBeGreaterThanOrEqual(1);
      expect(d.services.length).toBeLessThanOrEqual(4);
      expect(new Set(d.services).size).toBe(d.services.length);
      for (const s of d.services) expect(SERVICES).toContain(s);
      expect(d.plugin.name.length).toBeGreaterThan(0);
      expect(Object.keys(d.plugin.config).length).toBeGreaterThan(0);
      const { stat, status, web_stat, chart_stat } = d.check;
      for (const k of ['vpn', 'dnsbl', 'iplist'] as const) expect(Number.isInteger(stat[k])).toBe(true);
      expect(isTimestamp(stat.datetime)).toBe(true);
      expect(Number.isInteger(status)).toBe(true);
      for (const w of web_stat) expect(isTimestamp(w.datetime)).toBe(true);
      expect(chart_stat.length).toBeGreaterThan(0);
      chart_stat.forEach((b, i) => {
        expect(Number.isInteger(b.bucket_start)).toBe(true);
        expect(b.bucket_end - b.bucket_start).toBe(3600);
        if (i > 0) expect(b.bucket_start).toBe(chart_stat[i - 1]!.bucket_end);
        expect(Number.isInteger(b.total_requests) && Number.isInteger(b.malicious_requests)).toBe(true);
        expect(b.total_requests).toBeGreaterThanOrEqual(b.malicious_requests);
        expect(b.malicious_requests).toBeGreaterThanOrEqual(0);
      });
    }
  });

  it('rejects sizes out of range', () => {
    expect(() => generateDemoData({ devices: 0 })).toThrow(RangeError);
    expect(() => generateDemoData({ traffic: -1 })).toThrow(RangeError);
    expect(() => generateDemoData({ hotTraffic: 1.5 })).toThrow(RangeError);
    expect(generateDemoData({ devices: 1, traffic: 0, hotTraffic: 0 }).devices).toHaveLength(1);
  });
});

/** Shape and line/extra agreement of one traffic entry. */
function checkEntry(e: GeneratedTraffic): void {
  expect(Object.keys(e).sort()).toEqual(
    ['date_time', 'dest_ip', 'dest_port', 'device_id', 'extra', 'log_message', 'src_ip', 'type'],
  );
  expect(isTimestamp(e.date_time)).toBe(true);
  expect(['nginx_access', 'waf', 'ids', 'firewall']).toContain(e.type);
  expect(isIPv4(e.src_ip) && isIPv4(e.dest_ip)).toBe(true);
  expect(e.dest_port).toMatch(/^\d{1,5}$/);
  expect(e.log_message.length).toBeLessThan(10_000);
  expect(e.log_message).toContain(e.src_ip);
  expect(ACTIONS).toContain(e.extra.action);
  for (const [key, value] of Object.entries(e.extra)) {
    expect(typeof value, key).toBe('string');
    expect(value.length).toBeLessThan(10_000);
    // Every value but the normalized action is read from the line itself.
    if (key !== 'action') expect(e.log_message, key).toContain(value);
  }
  const keys: Record<string, string[]> = {
    nginx_access: ['method', 'path', 'status', 'bytes', 'user_agent'],
    waf: ['rule_id', 'msg', 'severity', 'uri'],
    ids: ['sid', 'signature', 'classification', 'proto'],
    firewall: ['src', 'dst', 'proto', 'dpt'],
  };
  for (const key of keys[e.type]!) expect(e.extra).toHaveProperty(key);
  if (e.type === 'nginx_access') {
    expect(e.log_message).toContain(`"${e.extra.method} ${e.extra.path} HTTP/1.1" ${e.extra.status} ${e.extra.bytes} `);
    expect(e.extra.action).toBe(e.extra.status === '403' ? 'block' : e.extra.status === '429' ? 'challenge' : 'allow');
  } else if (e.type === 'waf') {
    expect(e.log_message).toContain(`[id "${e.extra.rule_id}"]`);
    expect(e.log_message).toContain('ModSecurity: ');
  } else if (e.type === 'ids') {
    expect(e.log_message).toContain(`[1:${e.extra.sid}:`);
    expect(e.log_message).toContain(`-> ${e.dest_ip}:${e.dest_port}`);
  } else {
    expect(e.log_message).toContain(`SRC=${e.src_ip} DST=${e.dest_ip} `);
    expect(e.log_message).toContain(`PROTO=${e.extra.proto} `);
    expect(e.log_message).toContain(`DPT=${e.dest_port} `);
  }
}

describe('generateTraffic', () => {
  const deviceIds = generateDemoData({ devices: 12 }).devices.map((d) => d.id);

  it('yields realistic entries of every source, each line agreeing with its extra', () => {
    const entries = [...generateTraffic({ count: 3000, deviceIds })];
    expect(entries).toHaveLength(3000);
    entries.forEach(checkEntry);
    expect(new Set(entries.map((e) => e.type))).toEqual(new Set(['nginx_access', 'waf', 'ids', 'firewall']));
    expect(new Set(entries.map((e) => e.extra.action))).toEqual(new Set(ACTIONS));
    expect(new Set(entries.map((e) => e.device_id))).toEqual(new Set(deviceIds));
    // Recurring hostile sources make an IP-fragment search meaningful, among many others.
    expect(entries.filter((e) => e.src_ip.startsWith('203.0.113.')).length).toBeGreaterThan(30);
    expect(entries.filter((e) => e.src_ip.startsWith('198.51.100.')).length).toBeGreaterThan(30);
    expect(new Set(entries.map((e) => e.src_ip)).size).toBeGreaterThan(500);
  });

  it('is deterministic and re-iterable', () => {
    const traffic = generateTraffic({ count: 500, hotCount: 50, deviceIds });
    const first = JSON.stringify([...traffic]);
    expect(JSON.stringify([...traffic])).toBe(first);
    expect(JSON.stringify([...generateTraffic({ count: 500, hotCount: 50, deviceIds })])).toBe(first);
    expect(JSON.stringify([...generateTraffic({ count: 500, hotCount: 50, deviceIds, seed: 2 })])).not.toBe(first);
  });

  it('ascends in time up to the end, then puts the hot entries on the first device', () => {
    const end = new Date('2026-11-20T23:59:59Z');
    const entries = [...generateTraffic({ count: 2000, hotCount: 700, deviceIds: [5, 9, 3] })];
    expect(entries).toHaveLength(2700);
    for (let i = 1; i < entries.length; i++) {
      expect(entries[i]!.date_time >= entries[i - 1]!.date_time).toBe(true);
    }
    expect(Date.parse(entries.at(-1)!.date_time)).toBeLessThanOrEqual(end.getTime());
    expect(entries.slice(2000).every((e) => e.device_id === 5)).toBe(true);
    expect(new Set(entries.slice(0, 2000).map((e) => e.device_id))).toEqual(new Set([5, 9, 3]));

    const customEnd = new Date('2025-01-31T12:00:00Z');
    const custom = [...generateTraffic({ count: 100, deviceIds: [1], end: customEnd })];
    expect(custom.at(-1)!.date_time <= '2025-01-31T12:00:00Z').toBe(true);
    expect(custom[0]!.date_time >= '2025-01-01T12:00:00Z').toBe(true);
  });

  it('generates lazily: taking 10 of a million builds only those', () => {
    const before = process.memoryUsage().heapUsed;
    const traffic = generateTraffic({ count: 1_000_000, hotCount: 1_000_000, deviceIds });
    expect(Array.isArray(traffic)).toBe(false);
    const first = take(traffic, 10);
    expect(first).toHaveLength(10);
    first.forEach(checkEntry);
    // Two million entries of about a kilobyte each would be gigabytes.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024);
    expect(take(traffic, 10)).toEqual(first);
  });

  it('accepts zero entries and rejects bad options', () => {
    expect([...generateTraffic({ count: 0, deviceIds: [] })]).toEqual([]);
    expect(() => generateTraffic({ count: 1, deviceIds: [] })).toThrow(RangeError);
    expect(() => generateTraffic({ count: -1, deviceIds: [1] })).toThrow(RangeError);
    expect(() => generateTraffic({ count: 1, hotCount: 0.5, deviceIds: [1] })).toThrow(RangeError);
  });
});

describe('makeLiveTrafficEntry', () => {
  it('builds one entry at the given instant from the given PRNG', () => {
    const at = new Date('2027-02-03T04:05:06.789Z');
    const a = Array.from({ length: 200 }, () => null).map(
      ((rng) => () => makeLiveTrafficEntry(rng, 4, at))(createRng(42)),
    );
    a.forEach(checkEntry);
    for (const e of a) {
      expect(e.device_id).toBe(4);
      expect(e.date_time).toBe('2027-02-03T04:05:06Z');
    }
    const rng = createRng(42);
    expect(makeLiveTrafficEntry(rng, 4, at)).toEqual(a[0]);
    expect(() => makeLiveTrafficEntry(createRng(1), 4, new Date('not a date'))).toThrow(RangeError);
  });

  it('createRng is seeded and stays in [0, 1)', () => {
    const a = createRng(7);
    const b = createRng(7);
    const values = Array.from({ length: 1000 }, () => a.next());
    expect(values).toEqual(Array.from({ length: 1000 }, () => b.next()));
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(new Set(values).size).toBeGreaterThan(990);
  });
});
