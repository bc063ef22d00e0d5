// The five request shapes of the benchmark, each as the three targets receive it: a GraphQL
// operation for the gateway, a route of the pass-through, and the raw v1 calls for the direct
// target (one request, or a sequence made the way the gateway makes it).
import { frameworkBody, frameworkInput, v1Paths, type V1Framework } from './mapping.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT';

export interface PlainRequest {
  method: HttpMethod;
  path: string;
  body?: string;
}

/** How the direct target asks v1 for a shape. */
export type DirectPlan =
  | { kind: 'single'; request: PlainRequest }
  /** Several calls per request: `call` answers the body text, and throws unless 200 with `error` 0. */
  | { kind: 'sequence'; run: (call: (request: PlainRequest) => Promise<string>) => Promise<void> };

export interface Shape {
  id: number;
  name: string;
  title: string;
  /** Concurrency (autocannon connections) for this shape (run.ts puts BENCH_CONNECTIONS here when given). */
  connections: number;
  graphql: { query: string; variables: Record<string, unknown> };
  passthrough: PlainRequest;
  direct: DirectPlan;
}

export interface ShapeParameters {
  /** The device of shape 1 (an ordinary one, not the hot device with a million entries). */
  trafficDeviceId: string;
  organizationId: string;
  /** The framework shape 5 edits, as v1 holds it now. */
  framework: V1Framework;
}

const TRAFFIC_FIELDS = 'id dateTime type srcIp destIp destPort logMessage extra';
const FRAMEWORK_FIELDS = `id title controls {
      id controlId type title weight details frequency description evidenceType
      evidences { files details datetime completed residualRisk submittedBy { userId userEmail } }
    }`;

export function buildShapes(p: ShapeParameters): Shape[] {
  const input = frameworkInput(p.framework);
  const frameworkId = String(p.framework.id);
  return [
    {
      id: 1,
      name: 'traffic-one',
      title: 'one traffic entry of one device',
      connections: 32,
      graphql: {
        query: `query BenchTrafficOne($deviceId: ID!) {
  trafficLog(deviceId: $deviceId, first: 1) { totalCount nodes { ${TRAFFIC_FIELDS} } }
}`,
        variables: { deviceId: p.trafficDeviceId },
      },
      passthrough: { method: 'GET', path: `/traffic-one?deviceId=${p.trafficDeviceId}` },
      direct: { kind: 'single', request: { method: 'GET', path: v1Paths.traffic(p.trafficDeviceId, 1) } },
    },
    {
      id: 2,
      name: 'device-page',
      title: 'a page of 50 devices with their check blocks',
      connections: 32,
      graphql: {
        query: `query BenchDevicePage {
  protectionDevices(first: 50) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage }
    nodes {
      id deviceId type email endpoint privateIp atbKey services
      organization { id name logo }
      check {
        status
        stat { vpn dnsbl iplist datetime }
        webStat { datetime wafProtection totalManagedRequests }
        chartStat { bucketStart bucketEnd totalRequests maliciousRequests }
      }
    }
  }
}`,
        variables: {},
      },
      passthrough: { method: 'GET', path: '/device-page' },
      direct: { kind: 'single', request: { method: 'GET', path: v1Paths.devices(50, 'id') } },
    },
    {
      id: 3,
      name: 'fan-out',
      title: '20 devices, each with its 5 newest traffic entries',
      // 21 upstream calls per request: 16 requests in flight already keep 336 calls going.
      connections: 16,
      graphql: {
        // By id descending: the last 20 devices, not the hot device 1 and its million entries,
        // whose count would drown what the gateway adds.
        query: `query BenchFanOut {
  protectionDevices(first: 20, orderBy: { field: ID, direction: DESC }) {
    nodes { id deviceId traffic(first: 5) { totalCount nodes { ${TRAFFIC_FIELDS} } } }
  }
}`,
        variables: {},
      },
      passthrough: { method: 'GET', path: '/fan-out' },
      direct: {
        kind: 'sequence',
        async run(call) {
          const page = JSON.parse(await call({ method: 'GET', path: v1Paths.devices(20, '-id') })) as { data: { id: number }[] };
          await Promise.all(page.data.map((device) => call({ method: 'GET', path: v1Paths.traffic(device.id, 5) })));
        },
      },
    },
    {
      id: 4,
      name: 'frameworks',
      title: "an organization's frameworks with controls and evidences",
      connections: 32,
      graphql: {
        query: `query BenchFrameworks($organizationId: ID!) {
  securityFrameworks(organizationId: $organizationId) { totalCount nodes { ${FRAMEWORK_FIELDS} } }
}`,
        variables: { organizationId: p.organizationId },
      },
      passthrough: { method: 'GET', path: `/frameworks?organizationId=${p.organizationId}` },
      direct: { kind: 'single', request: { method: 'GET', path: v1Paths.frameworks(p.organizationId) } },
    },
    {
      id: 5,
      name: 'framework-edit',
      title: 'a framework edit (its current content: the state stays the same)',
      // Edits are writes: SQLite takes them one at a time, more in flight only queue.
      connections: 16,
      graphql: {
        query: `mutation BenchFrameworkEdit($organizationId: ID!, $id: ID!, $input: SecurityFrameworkInput!) {
  updateSecurityFramework(organizationId: $organizationId, id: $id, input: $input) { securityFramework { ${FRAMEWORK_FIELDS} } }
}`,
        variables: { organizationId: p.organizationId, id: frameworkId, input },
      },
      passthrough: { method: 'PUT', path: `/framework-edit?organizationId=${p.organizationId}&id=${frameworkId}`, body: JSON.stringify(input) },
      direct: {
        kind: 'single',
        request: { method: 'PUT', path: v1Paths.framework(p.organizationId, frameworkId), body: JSON.stringify(frameworkBody(input)) },
      },
    },
  ];
}
