// One start, as a new process is: compiles `file` with its cache, runs it, and saves the cache when
// asked (after bounding the heap's growth, as the launcher does, when asked so); prints what
// happened as JSON. (Within one process V8 keeps what it compiled, and would never read a cache
// for the same source twice: test/launcher/code-cache.test.ts starts this.)
import { compileCommonJs } from '../../src/launcher/code-cache.ts';
import { boundHeapGrowth, withStartFlags } from '../../src/launcher/heap-growth.ts';

const [file, cache, save] = process.argv.slice(2) as [string, string, string];
const compiled = compileCommonJs(file, cache);
const exported = compiled.run() as { version: string; answer: () => number; where: string; fail: () => never };
let stack = '';
try {
  exported.fail();
} catch (error) {
  stack = (error as Error).stack ?? '';
}
// 'save-grown': saved as the launcher does, once the heap's growth is bounded (heap-growth.ts);
// 'save-grown-as-is': saved with that flag still set, which the next start must refuse.
if (save === 'save-grown' || save === 'save-grown-as-is') boundHeapGrowth();
const saved = save === 'save' || save === 'save-grown-as-is' ? compiled.save() : save === 'save-grown' ? withStartFlags(() => compiled.save()) : null;
process.stdout.write(JSON.stringify({ state: compiled.state, version: exported.version, answer: exported.answer(), where: exported.where, stack, saved }));
