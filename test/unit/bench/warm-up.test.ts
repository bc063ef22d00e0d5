// When the benchmark's warm-up calls a target's pace steady (measure.ts): the paces here are a
// compiled gateway's first seconds on shape 1 and a pass-through's, as measured.
import { describe, expect, it } from 'vitest';
import { steadyPace, warmUpText } from '../../bench/measure.ts';

describe("the benchmark's warm-up", () => {
  it('goes on while the pace still climbs, even past two similar slow seconds', () => {
    const gateway = [747, 727, 1194, 1538, 1742, 1695, 1675];
    const verdicts = gateway.map((_, i) => steadyPace(gateway.slice(0, i + 1)));
    expect(verdicts).toEqual([false, false, false, false, false, false, true]);
  });

  it('stops after two seconds no faster than the best before them, wavering down included', () => {
    expect(steadyPace([2276, 2281, 2190])).toBe(true);
    expect(steadyPace([2276, 2281])).toBe(false);
    expect(steadyPace([1500, 1200, 1100])).toBe(true);
    expect(steadyPace([1000, 1050, 1200])).toBe(false);
  });

  it('is reported with its length and its first and last seconds', () => {
    expect(warmUpText({ seconds: 7.02, sliceRps: [747, 727, 1675], steady: true })).toBe('7 s (747 … 1675 rps)');
    expect(warmUpText({ seconds: 20, sliceRps: [500, 900], steady: false })).toBe('20 s (500 … 900 rps, not yet steady)');
  });
});
