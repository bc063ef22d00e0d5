// The traffic simulator: live entries, dated now, appended to random existing devices, so that a
// running reference service has a traffic log that moves.
import { createRng, makeLiveTrafficEntry } from './seed/generate.ts';
import type { Database } from './storage/database.ts';
import { listDeviceIds } from './storage/devices.ts';
import { insertTraffic } from './storage/traffic.ts';

export interface TrafficSimulator {
  stop(): void;
}

const TICK_MS = 100;
// After a stall (a long export on an in-memory database, a paused process) the simulator catches
// up on at most this much time rather than writing a burst.
const MAX_CATCH_UP_SECONDS = 2;
// Devices are not created through the API, but tests add some: the list is read again this often.
const DEVICE_REFRESH_MS = 5000;
/** The share of entries that go to the first device (by id). */
const BUSY_DEVICE_SHARE = 0.5;

function isBusy(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'SQLITE_BUSY' || (error instanceof TypeError && typeof message === 'string' && message.includes('busy'));
}

/**
 * Appends about `entriesPerSecond` entries a second (each through `insertTraffic`, so the search
 * index and counts follow) until `stop()`. The timer does not keep the process alive.
 */
export function startTrafficSimulator(db: Database, entriesPerSecond: number): TrafficSimulator {
  if (!(entriesPerSecond > 0) || !Number.isFinite(entriesPerSecond)) return { stop() {} };
  const rng = createRng(Date.now() >>> 0);
  const appendBatch = db.transaction((count: number, deviceIds: readonly number[], at: Date) => {
    for (let i = 0; i < count; i++) {
      // Half on the first device, so that one device's log visibly moves even at a gentle rate
      // (the embedded demo's 2 a second would give each of 60 devices one entry a half-minute).
      const deviceId = (rng.next() < BUSY_DEVICE_SHARE ? deviceIds[0] : deviceIds[Math.floor(rng.next() * deviceIds.length)]) as number;
      insertTraffic(db, makeLiveTrafficEntry(rng, deviceId, at));
    }
  });

  let deviceIds: number[] = [];
  let devicesReadAt = -Infinity;
  let owed = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    owed = Math.min(owed + ((now - last) / 1000) * entriesPerSecond, MAX_CATCH_UP_SECONDS * entriesPerSecond);
    last = now;
    const count = Math.floor(owed);
    if (count === 0 || !db.open) return;
    try {
      if (now - devicesReadAt > DEVICE_REFRESH_MS) {
        deviceIds = listDeviceIds(db);
        devicesReadAt = now;
      }
      if (deviceIds.length === 0) return;
      appendBatch(count, deviceIds, new Date());
      owed -= count;
    } catch (error) {
      // Busy (an export iterating an in-memory database, another process writing): the entries
      // stay owed and go in on a later tick. Anything else is a defect and is not hidden.
      if (!isBusy(error)) throw error;
    }
  }, TICK_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
    },
  };
}
