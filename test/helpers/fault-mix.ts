// A v1 upstream for load tests whose every answer is either a healthy v1 page or one fault, and
// whose choice is named by the request itself: a small positive id (an organization, a device, a
// record) is the index of a kind in FAULT_KINDS. The test picks the kind of each field it sends, so
// it knows which answer every field met; a retry carries the same id and meets the same fault.
// Unlike startFaultUpstream it records no calls (a load run would keep thousands in memory) and
// counts its sockets and the responses still open, to show leaks.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  contractBreaking,
  envelopeError,
  huge,
  json,
  notJson,
  rateLimited,
  resetBeforeHeaders,
  resetMidBody,
  slow,
  status5xx,
  truncated,
  type Behaviour,
} from './fault-upstream.ts';

export const FAULT_KINDS = [
  'healthy',
  'slow',
  'status5xx',
  'rateLimited',
  'resetMidBody',
  'resetBeforeHeaders',
  'truncated',
  'notJson',
  'contractBreaking',
  'huge',
  'envelopeError',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The id that asks the upstream for `kind` (1 is healthy). */
export function idOf(kind: FaultKind): string {
  return String(FAULT_KINDS.indexOf(kind) + 1);
}

function kindOf(id: string | null): FaultKind | undefined {
  return id === null ? undefined : FAULT_KINDS[Number(id) - 1];
}

export interface MixSettings {
  /** How long a `slow` answer waits: longer than the gateway's upstream deadline. */
  slowMs: number;
  /** Retry-After of a `rateLimited` answer, in seconds: longer than the deadline, so never retried. */
  retryAfterSeconds: number;
  /** Size a `huge` answer streams: larger than the gateway's body cap. */
  hugeBytes: number;
}

// --- Healthy v1 answers (shapes as src/gateway/upstream/envelope.ts checks them) ----------------

export const DEVICE_TOTAL = 12;
export const TRAFFIC_TOTAL = 40;
export const FRAMEWORK = { id: 5, title: 'ISO 27001', security_frameworks: [] };

export function wireDevice(id: number) {
  return {
    id,
    organization: { id: 1, name: 'Acme', logo: 'https://example.com/acme.png' },
    atb_key: `6f1c2a3b-4d5e-4f60-8a7b-${String(id).padStart(12, '0')}`,
    type: 'nginx',
    email: `device${id}@example.com`,
    check: {
      stat: { vpn: 1, dnsbl: 0, iplist: 2, datetime: '2026-11-21T08:15:30Z' },
      status: 1,
      web_stat: [{ datetime: '2026-11-21T08:00:00Z', waf_protection: 97.5, total_managed_requests: 1200 }],
      chart_stat: [{ bucket_start: 1795248000, bucket_end: 1795251600, total_requests: 300, malicious_requests: 7 }],
    },
    plugin: { name: 'modsecurity', config: { mode: 'block' } },
    endpoint: `203.0.113.${id}`,
    privateIP: `10.0.0.${id}`,
    services: ['waf', 'ddos'],
    device_id: `dev-${id}`,
  };
}

export function wireTrafficEntry(id: number) {
  return {
    id,
    date_time: `2026-11-21T08:${String(id % 60).padStart(2, '0')}:30Z`,
    type: 'waf',
    src_ip: '198.51.100.7',
    dest_ip: '10.0.0.2',
    dest_port: '443',
    log_message: `GET /login?attempt=${id} 403`,
    extra: { action: 'block' },
  };
}

export function wireRecord(id: number) {
  return {
    id,
    organization: { id: 1, name: 'Acme', logo: null },
    email: 'ops@example.com',
    fqdn: 'shop.example.com',
    check: null,
    endpoint: '203.0.113.10',
    services: ['waf'],
  };
}

function page<T>(query: URLSearchParams, total: number, item: (id: number) => T, defaultLimit: number) {
  const limit = Number(query.get('limit') ?? defaultLimit);
  const offset = Number(query.get('offset') ?? 0);
  const ids = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => offset + i + 1);
  return { error: 0, messages: [], total, data: ids.map(item) };
}

interface Routed {
  kind: FaultKind | undefined;
  healthy: Behaviour;
}

/** The route of a request, the kind its id names, and the healthy answer of that route. */
function route(method: string, path: string, query: URLSearchParams): Routed | undefined {
  let match: RegExpExecArray | null;
  if (method === 'GET' && path === '/api/v1/atb') {
    // The device list names its kind in the `organization` filter; none (e.g. /readyz): healthy.
    return { kind: query.has('organization') ? kindOf(query.get('organization')) : 'healthy', healthy: json(200, page(query, DEVICE_TOTAL, wireDevice, 50)) };
  }
  if (method === 'GET' && (match = /^\/api\/v1\/atb\/(\d+)\/traffic$/.exec(path))) {
    return { kind: kindOf(match[1]!), healthy: json(200, page(query, TRAFFIC_TOTAL, wireTrafficEntry, 10)) };
  }
  if (method === 'GET' && (match = /^\/api\/v1\/organizations\/(\d+)\/security-frameworks$/.exec(path))) {
    return { kind: kindOf(match[1]!), healthy: json(200, { error: 0, messages: [], total: 1, data: [FRAMEWORK] }) };
  }
  if (method === 'PUT' && (match = /^\/api\/v1\/cloud-defender\/(\d+)$/.exec(path))) {
    return { kind: kindOf(match[1]!), healthy: json(200, { error: 0, messages: [], data: wireRecord(Number(match[1])) }) };
  }
  return undefined;
}

function behaviourOf(kind: FaultKind, healthy: Behaviour, settings: MixSettings): Behaviour {
  switch (kind) {
    case 'healthy':
      return healthy;
    case 'slow':
      return slow(settings.slowMs, healthy);
    case 'status5xx':
      return status5xx;
    case 'rateLimited':
      return rateLimited(settings.retryAfterSeconds);
    case 'resetMidBody':
      return resetMidBody;
    case 'resetBeforeHeaders':
      return resetBeforeHeaders;
    case 'truncated':
      return truncated;
    case 'notJson':
      return notJson;
    case 'contractBreaking':
      return contractBreaking;
    case 'huge':
      return huge(settings.hugeBytes);
    case 'envelopeError':
      return envelopeError(200);
  }
}

export interface MixUpstream {
  url: string;
  port: number;
  /** Requests received per kind (retries included). */
  requests: Record<FaultKind, number>;
  /** Requests on no known route or naming no kind: the test sent something it did not mean to. */
  unrouted: number;
  /** TCP connections open now. */
  openSockets(): number;
  /** Requests whose response is neither finished nor cut: a slow answer still waiting, a huge one still streaming. */
  openResponses(): number;
  close(): Promise<void>;
}

export async function startMixUpstream(settings: MixSettings): Promise<MixUpstream> {
  const requests = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  const sockets = new Set<Socket>();
  let open = 0;
  const state = { unrouted: 0 };

  const answer = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const [path = '', search = ''] = (req.url ?? '').split('?', 2);
    // An upstream with the seed's operations only: the gateway's start-time look for the read
    // extension of web protection records finds none, and that is not a stray request.
    if (req.method === 'GET' && path.startsWith('/api/v1/cloud-defender')) return json(404, { error: 1, messages: [{ code: 'not_found', message: 'Not found' }] })(req, res, body);
    const routed = route(req.method ?? '', path, new URLSearchParams(search));
    if (routed?.kind === undefined) {
      state.unrouted += 1;
      return json(404, { error: 1, messages: [{ code: 'not_found', message: 'Not found' }] })(req, res, body);
    }
    requests[routed.kind] += 1;
    return behaviourOf(routed.kind, routed.healthy, settings)(req, res, body);
  };

  const server = createServer((req, res) => {
    open += 1;
    res.on('close', () => (open -= 1));
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      Promise.resolve(answer(req, res, Buffer.concat(chunks).toString('utf8'))).catch(() => res.destroy());
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    get unrouted() {
      return state.unrouted;
    },
    openSockets: () => sockets.size,
    openResponses: () => open,
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
