// One start, as a new process is: compiles `file` with its cache, runs it, and saves the cache when
// asked; prints what happened as JSON. (Within one process V8 keeps what it compiled, and would
// never read a cache for the same source twice: test/launcher/code-cache.test.ts starts this.)
import { compileCommonJs } from '../../src/launcher/code-cache.ts';

const [file, cache, save] = process.argv.slice(2) as [string, string, string];
const compiled = compileCommonJs(file, cache);
const exported = compiled.run() as { version: string; answer: () => number; where: string; fail: () => never };
let stack = '';
try {
  exported.fail();
} catch (error) {
  stack = (error as Error).stack ?? '';
}
const saved = save === 'save' ? compiled.save() : null;
process.stdout.write(JSON.stringify({ state: compiled.state, version: exported.version, answer: exported.answer(), where: exported.where, stack, saved }));
