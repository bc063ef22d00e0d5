// Traffic log entries of four sources (nginx access log, ModSecurity in the nginx error log,
// Suricata fast.log, UFW kernel log). Each line is built from a template and `extra` from the same
// pieces, so they agree without parsing; everything that can be is drawn from pools built once.
// Millions of entries go through `trafficEntry`: keep it to string concatenation and table lookups.

import type { NewTrafficEntry } from '../../storage/traffic.ts';
import { deviceNetwork, hash32 } from './network.ts';
import { pick, type Rng } from './rng.ts';
import { clock, dayFormats } from './time.ts';
import { sourceAddress, BROWSER_AGENTS, HOSTILE_AGENTS, PATHS, PROBE_PATHS, METHODS, STATUSES, PROBE_STATUSES, httpAction, WAF_RULES, IDS_SIGNATURES, BLOCKED_TARGETS, ALLOWED_TARGETS, YEAR } from './traffic-vocabulary.ts';

// ---------------------------------------------------------------------------------------------
// Per-device constants

interface DeviceContext {
  deviceId: number;
  endpoint: string;
  privatePrefix: string;
  hostname: string;
  sites: readonly string[];
  referers: readonly string[];
  nginxPid: string;
  mac: string;
  bootEpoch: number;
}

const contexts = new Map<number, DeviceContext>();

function deviceContext(deviceId: number): DeviceContext {
  let ctx = contexts.get(deviceId);
  if (ctx === undefined) {
    const net = deviceNetwork(deviceId);
    const h = hash32(deviceId + 0x7a11c);
    const hex = (n: number) => (n & 255).toString(16).padStart(2, '0');
    const sites = [`www.${net.organization.domain}`, `api.${net.organization.domain}`];
    ctx = {
      deviceId,
      endpoint: net.endpoint,
      privatePrefix: net.privatePrefix,
      hostname: net.hostname,
      sites,
      referers: ['-', '-', `https://${sites[0]}/`, `https://${sites[0]}/cart`, 'https://www.google.com/', 'https://duckduckgo.com/'],
      nginxPid: String(1000 + (h % 30_000)),
      // destination MAC (the device), source MAC (the upstream router), EtherType IPv4
      mac: `52:54:00:${hex(h >>> 8)}:${hex(h >>> 16)}:${hex(h >>> 24)}:00:1c:73:${hex(h)}:${hex(h >>> 5)}:${hex(h >>> 11)}:08:00`,
      bootEpoch: 1_700_000_000 + (h % 5_000_000),
    };
    contexts.set(deviceId, ctx);
  }
  return ctx;
}

// ---------------------------------------------------------------------------------------------
// Entries

function micros(rng: Rng): string {
  return String(1_000_000 + Math.floor(rng.next() * 1_000_000)).slice(1);
}

function ephemeralPort(rng: Rng): string {
  return String(1024 + Math.floor(rng.next() * 64_511));
}

function nginxEntry(rng: Rng, ctx: DeviceContext, t: number): NewTrafficEntry {
  const hostile = rng.next() < 0.08;
  const src = sourceAddress(rng, hostile ? 0.85 : 0.01);
  let method: string;
  let path: string;
  let status: number;
  let agent: string;
  if (hostile) {
    method = rng.next() < 0.8 ? 'GET' : 'POST';
    path = pick(rng, PROBE_PATHS);
    status = pick(rng, PROBE_STATUSES);
    agent = pick(rng, HOSTILE_AGENTS);
  } else {
    method = pick(rng, METHODS);
    path = pick(rng, PATHS);
    status = pick(rng, STATUSES);
    agent = pick(rng, BROWSER_AGENTS);
  }
  if (status === 201 && method === 'GET') status = 200;
  const bytes = String(
    status === 304 || status === 204 || method === 'HEAD'
      ? 0
      : status >= 300
        ? 150 + Math.floor(rng.next() * 500)
        : 300 + Math.floor(rng.next() * 48_000),
  );
  const referer = hostile ? '-' : pick(rng, ctx.referers);
  const statusText = String(status);
  const day = dayFormats(t);
  const time = clock(t);
  return {
    date_time: `${day.iso}T${time}Z`,
    type: 'nginx_access',
    src_ip: src,
    dest_ip: ctx.endpoint,
    dest_port: rng.next() < 0.93 ? '443' : '80',
    log_message: `${src} - - [${day.clf}:${time} +0000] "${method} ${path} HTTP/1.1" ${statusText} ${bytes} "${referer}" "${agent}"`,
    extra: {
      action: httpAction(status),
      method,
      path,
      protocol: 'HTTP/1.1',
      status: statusText,
      bytes,
      referer,
      user_agent: agent,
    },
    device_id: ctx.deviceId,
  };
}

function wafEntry(rng: Rng, ctx: DeviceContext, t: number): NewTrafficEntry {
  const rule = pick(rng, WAF_RULES);
  const request = pick(rng, rule.requests);
  const src = sourceAddress(rng, 0.7);
  const host = pick(rng, ctx.sites);
  const r = rng.next();
  const action = r < 0.6 ? 'block' : r < 0.85 ? 'log' : 'challenge';
  const phase = request.method === 'POST' ? '2' : '1';
  const intervention =
    action === 'block'
      ? `Access denied with code 403 (phase ${phase}).`
      : action === 'challenge'
        ? `Access denied with redirection to https://${host}/__challenge using status 302 (phase ${phase}).`
        : 'Warning.';
  const uniqueId = `${t}${micros(rng)}`;
  const day = dayFormats(t);
  const time = clock(t);
  return {
    date_time: `${day.iso}T${time}Z`,
    type: 'waf',
    src_ip: src,
    dest_ip: ctx.endpoint,
    dest_port: '443',
    log_message:
      `${day.slashed} ${time} [${action === 'log' ? 'warn' : 'error'}] ${ctx.nginxPid}#${ctx.nginxPid}: *${1 + Math.floor(rng.next() * 9_999_999)} ` +
      `[client ${src}] ModSecurity: ${intervention} [file "/etc/nginx/modsec/coreruleset/rules/${rule.file}"] [line "${rule.line}"] ` +
      `[id "${rule.id}"] [msg "${rule.msg}"] [severity "${rule.severity}"] [tag "${rule.tag}"] [hostname "${ctx.endpoint}"] ` +
      `[uri "${request.uri}"] [unique_id "${uniqueId}"], client: ${src}, server: ${host}, request: "${request.method} ${request.target} HTTP/1.1", host: "${host}"`,
    extra: {
      action,
      rule_id: rule.id,
      msg: rule.msg,
      severity: rule.severity,
      tag: rule.tag,
      method: request.method,
      uri: request.uri,
      host,
      unique_id: uniqueId,
    },
    device_id: ctx.deviceId,
  };
}

function idsEntry(rng: Rng, ctx: DeviceContext, t: number): NewTrafficEntry {
  const sig = pick(rng, IDS_SIGNATURES);
  const src = sourceAddress(rng, 0.6);
  const srcPort = ephemeralPort(rng);
  const dst = `${ctx.privatePrefix}${10 + Math.floor(rng.next() * 50)}`;
  const dstPort = pick(rng, sig.ports);
  const dropped = rng.next() < 0.25;
  const day = dayFormats(t);
  const time = clock(t);
  return {
    date_time: `${day.iso}T${time}Z`,
    type: 'ids',
    src_ip: src,
    dest_ip: dst,
    dest_port: dstPort,
    log_message:
      `${day.us}-${time}.${micros(rng)}  ${dropped ? '[Drop] ' : ''}[**] [1:${sig.sid}:${sig.rev}] ${sig.msg} [**] ` +
      `[Classification: ${sig.classification}] [Priority: ${sig.priority}] {${sig.proto}} ${src}:${srcPort} -> ${dst}:${dstPort}`,
    extra: {
      action: dropped ? 'block' : 'log',
      gid: '1',
      sid: sig.sid,
      rev: sig.rev,
      signature: sig.msg,
      classification: sig.classification,
      priority: sig.priority,
      proto: sig.proto,
      src_port: srcPort,
    },
    device_id: ctx.deviceId,
  };
}

function firewallEntry(rng: Rng, ctx: DeviceContext, t: number): NewTrafficEntry {
  const r = rng.next();
  const verdict = r < 0.65 ? 'BLOCK' : r < 0.9 ? 'ALLOW' : 'AUDIT';
  const target = verdict === 'ALLOW' ? pick(rng, ALLOWED_TARGETS) : pick(rng, BLOCKED_TARGETS);
  const src = sourceAddress(rng, verdict === 'ALLOW' ? 0.02 : 0.55);
  const srcPort = ephemeralPort(rng);
  const ttl = String(pick(rng, [45, 49, 52, 54, 57, 112, 116, 241]));
  const len = target.proto === 'TCP' ? pick(rng, [40, 44, 52, 60]) : 28 + Math.floor(rng.next() * 120);
  const lenText = String(len);
  const uptime = (((t - ctx.bootEpoch) % YEAR) + YEAR) % YEAR;
  const transport =
    target.proto === 'TCP'
      ? `WINDOW=${pick(rng, ['1024', '29200', '64240', '65535'])} RES=0x00 SYN URGP=0`
      : `LEN=${len - 20}`;
  const day = dayFormats(t);
  const time = clock(t);
  return {
    date_time: `${day.iso}T${time}Z`,
    type: 'firewall',
    src_ip: src,
    dest_ip: ctx.endpoint,
    dest_port: target.port,
    log_message:
      `${day.syslog} ${time} ${ctx.hostname} kernel: [${uptime}.${micros(rng)}] [UFW ${verdict}] IN=eth0 OUT= MAC=${ctx.mac} ` +
      `SRC=${src} DST=${ctx.endpoint} LEN=${lenText} TOS=0x00 PREC=0x00 TTL=${ttl} ID=${Math.floor(rng.next() * 65_536)} ` +
      `${target.proto === 'TCP' ? 'DF ' : ''}PROTO=${target.proto} SPT=${srcPort} DPT=${target.port} ${transport}`,
    extra: {
      action: verdict === 'BLOCK' ? 'block' : verdict === 'ALLOW' ? 'allow' : 'log',
      prefix: `UFW ${verdict}`,
      in: 'eth0',
      src,
      dst: ctx.endpoint,
      len: lenText,
      ttl,
      proto: target.proto,
      spt: srcPort,
      dpt: target.port,
    },
    device_id: ctx.deviceId,
  };
}

/** One entry of a source drawn by weight: half web access, the rest security events. */
export function trafficEntry(rng: Rng, deviceId: number, epochSeconds: number): NewTrafficEntry {
  const ctx = deviceContext(deviceId);
  const r = rng.next();
  if (r < 0.5) return nginxEntry(rng, ctx, epochSeconds);
  if (r < 0.7) return wafEntry(rng, ctx, epochSeconds);
  if (r < 0.82) return idsEntry(rng, ctx, epochSeconds);
  return firewallEntry(rng, ctx, epochSeconds);
}
