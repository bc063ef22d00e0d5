// Deterministic demo data for the reference v1 service: pure functions, no I/O. The seeding
// (`./index.ts`) stores what these return; the traffic simulator calls `makeLiveTrafficEntry`.

import type {
  OrganizationRef,
  ProtectionDevice,
  SecurityFramework,
  WebProtectionRecord,
} from '../records.ts';
import type { ApiKey } from '../storage/keys.ts';
import type { NewTrafficEntry } from '../storage/traffic.ts';
import { generateDevice } from './generate/devices.ts';
import { generateFrameworks } from './generate/frameworks.ts';
import { DEMO_API_KEYS, ORGANIZATIONS, organizationRef } from './generate/organizations.ts';
import { createRng, type Rng } from './generate/rng.ts';
import { DAY, DEMO_END, epochSeconds } from './generate/time.ts';
import { trafficEntry } from './generate/traffic.ts';
import { generateWebProtectionRecords } from './generate/web-protection.ts';

export { createRng, type Rng } from './generate/rng.ts';
export { DEMO_END } from './generate/time.ts';

export interface SeedSizes {
  devices: number;
  traffic: number;
  hotTraffic: number;
}

export const DEFAULT_SEED_SIZES: SeedSizes = { devices: 60, traffic: 40_000, hotTraffic: 0 };

// One key type (storage/keys.ts); seed/index.ts imports it under this name.

export interface DemoFramework {
  organizationId: number;
  /** ids 1..n; controls carry their evidences */
  framework: SecurityFramework;
}

export interface DemoData {
  organizations: OrganizationRef[];
  apiKeys: ApiKey[];
  frameworks: DemoFramework[];
  webProtectionRecords: WebProtectionRecord[];
  devices: ProtectionDevice[];
}

/** Days of traffic that the seeded log covers, ending at `end`. */
export const TRAFFIC_DAYS = 30;

const DEFAULT_TRAFFIC_SEED = 0x7aff1c;

function checkCount(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
  }
}

export function generateDemoData(sizes: Partial<SeedSizes> = {}): DemoData {
  const { devices, traffic, hotTraffic } = { ...DEFAULT_SEED_SIZES, ...sizes };
  checkCount('traffic', traffic, 0);
  checkCount('hotTraffic', hotTraffic, 0);
  return { ...demoCatalogue(), devices: [...demoDevices(devices)] };
}

/** Everything of the demo data but its devices: organizations, keys, frameworks, web protection. */
export function demoCatalogue(): Omit<DemoData, 'devices'> {
  return {
    organizations: ORGANIZATIONS.map(organizationRef),
    apiKeys: DEMO_API_KEYS.map((k) => ({ ...k })),
    frameworks: generateFrameworks(),
    webProtectionRecords: generateWebProtectionRecords(),
  };
}

/** The demo devices, ids 1..count, made one at a time (a million need not sit in memory at once). */
export function* demoDevices(count: number): Generator<ProtectionDevice> {
  checkCount('devices', count, 1);
  for (let id = 1; id <= count; id++) yield generateDevice(id);
}

/**
 * Traffic entries (without id) in ascending `date_time` order, attributed to device ids.
 * `count` entries spread uniformly at random over `deviceIds` across the `TRAFFIC_DAYS` days
 * before `end`, then `hotCount` more, all on `deviceIds[0]`, packed into the last day (a burst on
 * one device, the benchmark's "a million entries on one device"); with `hotCount` 0 the spread
 * entries reach `end`. Lazy and re-iterable: each iteration starts over and yields the same entries.
 */
export function generateTraffic(opts: {
  count: number;
  hotCount?: number;
  deviceIds: number[];
  seed?: number;
  end?: Date;
}): Iterable<NewTrafficEntry> {
  const { count, hotCount = 0, seed = DEFAULT_TRAFFIC_SEED, end = DEMO_END } = opts;
  const deviceIds = [...opts.deviceIds];
  checkCount('count', count, 0);
  checkCount('hotCount', hotCount, 0);
  if (count + hotCount > 0 && deviceIds.length === 0) throw new RangeError('deviceIds must not be empty');
  for (const id of deviceIds) checkCount('device id', id, 1);
  const endSeconds = epochSeconds(end);
  if (!Number.isFinite(endSeconds)) throw new RangeError('end must be a valid date');

  return {
    *[Symbol.iterator](): Generator<NewTrafficEntry> {
      const rng = createRng(seed);
      const hotWindow = hotCount > 0 ? DAY : 0;
      // Entry i lands at a random second of the i-th of `count` equal slices of the range, so
      // the sequence is ascending without sorting.
      const spreadSpan = TRAFFIC_DAYS * DAY - hotWindow;
      const spreadStart = endSeconds - TRAFFIC_DAYS * DAY + 1;
      for (let i = 0; i < count; i++) {
        const t = spreadStart + Math.floor(((i + rng.next()) * spreadSpan) / count);
        const device = deviceIds[Math.floor(rng.next() * deviceIds.length)] as number;
        yield trafficEntry(rng, device, t);
      }
      const hotStart = endSeconds - hotWindow + 1;
      const hotDevice = deviceIds[0] as number;
      for (let i = 0; i < hotCount; i++) {
        yield trafficEntry(rng, hotDevice, hotStart + Math.floor(((i + rng.next()) * hotWindow) / hotCount));
      }
    },
  };
}

/** One live entry for the traffic simulator, dated `at` (to the second). */
export function makeLiveTrafficEntry(rng: Rng, deviceId: number, at: Date): NewTrafficEntry {
  checkCount('deviceId', deviceId, 1);
  const seconds = epochSeconds(at);
  if (!Number.isFinite(seconds)) throw new RangeError('at must be a valid date');
  return trafficEntry(rng, deviceId, seconds);
}
