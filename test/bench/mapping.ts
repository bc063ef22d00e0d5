// The pass-through's hand-written equivalent of the gateway's work for the benchmark's shapes:
// the v1 paths the gateway calls, and the v1 JSON turned into the JSON of the GraphQL selections
// in shapes.ts by the tests' oracle (test/helpers/oracle.ts), the same the suites check the
// gateway with. The benchmark's pass-through shares no code with the gateway.
import { controlFields, protectionDevice, type V1Framework } from '../helpers/oracle.ts';

export { securityFramework as framework, trafficLogEntry as trafficEntry } from '../helpers/oracle.ts';
export type { V1Device, V1Framework, V1List, V1Traffic } from '../helpers/oracle.ts';

/** The GraphQL `SecurityFrameworkInput` of shape 5. */
export interface FrameworkInput {
  title: string;
  controls: {
    controlId: string;
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

/** Shape 2's device: every field but the plugin, which its selection leaves out. */
export function deviceWithCheck(device: Parameters<typeof protectionDevice>[0]) {
  const { plugin: _plugin, ...selected } = protectionDevice(device);
  return selected;
}

// --- Shape 5: the edit's input, both ways ---------------------------------------------------------

/** A framework's current content as the GraphQL input that leaves it as it is. */
export function frameworkInput(item: V1Framework): FrameworkInput {
  return {
    title: item.title,
    controls: item.security_frameworks.map(controlFields),
  };
}

/** The input as the v1 body (evidence belongs to the service: sent empty, as the gateway does). */
export function frameworkBody(input: FrameworkInput) {
  return {
    title: input.title,
    security_frameworks: input.controls.map((control) => ({
      id: control.controlId,
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
