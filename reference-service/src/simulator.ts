// The traffic simulator: live entries, dated now, appended to random existing devices, so that a
// running reference service has a traffic log that moves.
import { createRng, makeLiveTrafficEntry } from './seed/generate.ts';
import type { V1Store } from './storage/store.ts';
import type { NewTrafficEntry } from './storage/traffic.ts';

export interface TrafficSimulator {
  stop(): void;
  /** Resolves once a batch being written when stop() was called is done. */
  stopped(): Promise<void>;
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
 * Appends about `entriesPerSecond` entries a second (through the store, so the search index and
 * counts follow) until `stop()`. The timer does not keep the process alive. A batch that fails
 * because the database is busy (an export iterating an in-memory SQLite database, another process
 * writing) stays owed; any other failure is logged, and the entries stay owed too.
 */
export function startTrafficSimulator(store: V1Store, entriesPerSecond: number, log: (line: string) => void = () => {}): TrafficSimulator {
  if (!(entriesPerSecond > 0) || !Number.isFinite(entriesPerSecond)) return { stop() {}, stopped: async () => {} };
  const rng = createRng(Date.now() >>> 0);

  let deviceIds: number[] = [];
  let devicesReadAt = -Infinity;
  let owed = 0;
  let last = performance.now();
  let running: Promise<void> | undefined;
  let stopped = false;

  async function tick(now: number, count: number): Promise<void> {
    try {
      if (now - devicesReadAt > DEVICE_REFRESH_MS) {
        deviceIds = await store.listDeviceIds();
        devicesReadAt = now;
      }
      if (deviceIds.length === 0 || stopped) return;
      const at = new Date();
      const entries: NewTrafficEntry[] = [];
      for (let i = 0; i < count; i++) {
        // Half on the first device, so that one device's log visibly moves even at a gentle rate
        // (the embedded demo's 2 a second would give each of 60 devices one entry a half-minute).
        const deviceId = (rng.next() < BUSY_DEVICE_SHARE ? deviceIds[0] : deviceIds[Math.floor(rng.next() * deviceIds.length)]) as number;
        entries.push(makeLiveTrafficEntry(rng, deviceId, at));
      }
      await store.appendTraffic(entries);
      owed -= count;
    } catch (error) {
      if (stopped || isBusy(error)) return;
      log(`v1: the traffic simulator could not append: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  const timer = setInterval(() => {
    const now = performance.now();
    owed = Math.min(owed + ((now - last) / 1000) * entriesPerSecond, MAX_CATCH_UP_SECONDS * entriesPerSecond);
    last = now;
    const count = Math.floor(owed);
    // One batch at a time: a slow write delays the next tick's batch instead of piling up.
    if (count === 0 || running || stopped) return;
    running = tick(now, count).finally(() => {
      running = undefined;
    });
  }, TICK_MS);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
    async stopped() {
      await running;
    },
  };
}
