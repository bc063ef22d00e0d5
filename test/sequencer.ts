// The order the suites start in. Vitest starts the files it has timed before longest first; on a
// fresh clone (CI) it knows no durations and starts the largest files first, which put the suite
// that seeds the benchmark's database (a million entries, minutes of one core) among the last of
// its group: everything else had finished long before it did. Files named here start first in
// their group, so that such a setup runs beside the other suites instead of after them.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Suites whose setup alone takes minutes on a fresh clone. */
const SLOW_SETUP = ['test/integration/gateway/window-calls.test.ts'];

export class SlowSetupFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const slow = (spec: TestSpecification) => SLOW_SETUP.some((path) => spec.moduleId.endsWith(`/${path}`));
    // Within each group (sequence.groupOrder), the slow ones first; otherwise vitest's order.
    const rank = (spec: TestSpecification) => spec.project.config.sequence.groupOrder * 2 + (slow(spec) ? 0 : 1);
    return sorted.map((spec, index) => ({ spec, index })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index).map(({ spec }) => spec);
  }
}
