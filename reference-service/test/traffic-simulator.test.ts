// The traffic simulator: live entries that the list and the search see at once.
import { describe, expect, it, vi } from 'vitest';
import type { TrafficLogEntry } from '../src/records.ts';
import { startTrafficSimulator } from '../src/simulator.ts';
import { startTestV1, v1Request } from './helpers/v1.ts';
import type { TestV1 } from './helpers/v1.ts';

const SIZES = { devices: 3, traffic: 30, hotTraffic: 0 };

function totalEntries(service: TestV1): number {
  return (service.db.prepare('SELECT count(*) AS n FROM traffic').get() as { n: number }).n;
}

describe('the traffic simulator', () => {
  it('appends entries dated now that the list and the search then serve', async () => {
    const service = await startTestV1({ seed: 'demo', seedSizes: SIZES, simulateTraffic: 200 });
    try {
      const seeded = SIZES.traffic;
      const started = Date.now();
      await vi.waitUntil(() => totalEntries(service) >= seeded + 40, { timeout: 3_000, interval: 10 });
      service.db.exec(`INSERT INTO traffic_search (traffic_search, rank) VALUES ('integrity-check', 1)`);

      let live: TrafficLogEntry | undefined;
      for (const deviceId of [1, 2, 3]) {
        const res = await v1Request(service, 'GET', `/api/v1/atb/${deviceId}/traffic?limit=1`);
        const newest = res.json.data[0] as TrafficLogEntry | undefined;
        if (newest && Date.parse(newest.date_time) >= Math.floor(started / 1000) * 1000) {
          live = newest;
          // The newest first: dated now, not in the seeded past.
          expect(Date.now() - Date.parse(newest.date_time)).toBeLessThan(10_000);
          const search = `${newest.src_ip} ${newest.type}`;
          const found = await v1Request(
            service,
            'GET',
            `/api/v1/atb/${deviceId}/traffic?limit=1000&search=${encodeURIComponent(search)}`,
          );
          expect(found.json.data.map((e: TrafficLogEntry) => e.id)).toContain(newest.id);
          const action = newest.extra.action;
          if (action !== undefined) {
            const byAction = await v1Request(service, 'GET', `/api/v1/atb/${deviceId}/traffic?limit=1000&actions[]=${action}`);
            expect(byAction.json.data.map((e: TrafficLogEntry) => e.id)).toContain(newest.id);
          }
        }
      }
      expect(live).toBeDefined();
    } finally {
      await service.close();
    }
  });

  it('stops appending when stopped', async () => {
    const service = await startTestV1({ seed: 'demo', seedSizes: SIZES });
    try {
      const simulator = startTrafficSimulator(service.store, 500);
      await vi.waitUntil(() => totalEntries(service) > SIZES.traffic, { timeout: 3_000, interval: 10 });
      simulator.stop();
      const stopped = totalEntries(service);
      await new Promise((r) => setTimeout(r, 300));
      expect(totalEntries(service)).toBe(stopped);
      const res = await v1Request(service, 'GET', '/api/v1/atb/1/traffic');
      const listed = [1, 2, 3].map((id) =>
        (service.db.prepare('SELECT count(*) AS n FROM traffic WHERE device_id = ?').get(id) as { n: number }).n,
      );
      expect(res.json.total).toBe(listed[0]);
      expect(listed.reduce((a, b) => a + b)).toBe(stopped);
    } finally {
      await service.close();
    }
  });
});
