// The launcher's code cache (src/launcher/code-cache.ts) with V8's own: a CommonJS file run from
// its source, its cache written, then run from the cache; and every way a cache can be wrong. Each
// start is a process of its own (code-cache-child.ts), as a gateway's start is.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./code-cache-child.ts', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

interface Start {
  state: 'absent' | 'stale' | 'rejected' | 'accepted';
  version: string;
  answer: number;
  where: string;
  stack: string;
  saved: boolean | null;
}

/** One start of `file` with `cache`, in a new process; `save`: then write the cache. */
function start(file: string, cache: string, save: 'save' | 'save-grown' | 'save-grown-as-is' | 'no' = 'no', nodeFlags: string[] = []): Start {
  return JSON.parse(execFileSync(process.execPath, [...nodeFlags, '--import', TSX_LOADER, CHILD, file, cache, save], { encoding: 'utf8' })) as Start;
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A directory with a CommonJS file (requiring a file beside it) whose source is `version`. */
function fixture(version: string): { dir: string; file: string; cache: string } {
  const dir = mkdtempSync(join(tmpdir(), 'code-cache-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'beside.cjs'), 'module.exports = 40;\n');
  const file = join(dir, 'bundle.cjs');
  writeFileSync(file, source(version));
  return { dir, file, cache: `${file}.cache` };
}

function source(version: string): string {
  return [
    `const beside = require('./beside.cjs');`,
    `exports.version = '${version}';`,
    `exports.answer = () => beside + 2;`,
    `exports.where = __filename;`,
    `exports.fail = () => { throw new Error('line 6'); };`,
    '',
  ].join('\n');
}

describe("the launcher's code cache", () => {
  it('runs a file as CommonJS, without a cache the first time, then from the cache it saved', () => {
    const { file, cache } = fixture('a');
    const first = start(file, cache, 'save');
    expect(first).toMatchObject({ state: 'absent', version: 'a', answer: 42, where: file, saved: true });
    expect(existsSync(cache)).toBe(true);
    expect(start(file, cache)).toMatchObject({ state: 'accepted', version: 'a', answer: 42 });
  });

  it('reads a file with characters beyond ASCII as UTF-8 (an ASCII one is taken as its bytes), from the cache too', () => {
    const { file, cache } = fixture('d\u00e9j\u00e0 vu \u2026 \u{1f512}');
    expect(start(file, cache, 'save')).toMatchObject({ state: 'absent', version: 'd\u00e9j\u00e0 vu \u2026 \u{1f512}', answer: 42 });
    expect(start(file, cache)).toMatchObject({ state: 'accepted', version: 'd\u00e9j\u00e0 vu \u2026 \u{1f512}' });
  });

  it("keeps the file's own line numbers in stack traces, from the cache too", () => {
    const { file, cache } = fixture('a');
    expect(start(file, cache, 'save').stack).toContain(`${file}:5:`);
    const cached = start(file, cache);
    expect(cached.state).toBe('accepted');
    expect(cached.stack).toContain(`${file}:5:`);
  });

  it('never hands V8 a cache made for other source, even of the same length', () => {
    const { file, cache } = fixture('a');
    start(file, cache, 'save');
    writeFileSync(file, source('b'));
    expect(readFileSync(file, 'utf8').length).toBe(source('a').length);
    expect(start(file, cache, 'save')).toMatchObject({ state: 'stale', version: 'b', saved: true });
    expect(start(file, cache)).toMatchObject({ state: 'accepted', version: 'b' });
  });

  it('runs from source when V8 refuses the cache, and makes a good one again', () => {
    const { file, cache } = fixture('a');
    start(file, cache, 'save');
    const stored = readFileSync(cache);
    // The source's hash kept, V8's data damaged.
    stored.fill(7, 20);
    writeFileSync(cache, stored);
    expect(start(file, cache, 'save')).toMatchObject({ state: 'rejected', answer: 42, saved: true });
    expect(start(file, cache)).toMatchObject({ state: 'accepted', answer: 42 });
  });

  it("is saved under the start's flags once the heap's growth is bounded, so that the next start takes it (heap-growth.ts)", () => {
    // Bounding the growth sets a V8 flag, which V8 checks caches against: a cache saved with it
    // set is refused by the next start, compiled before it is set. That refusal also shows the
    // flag is really set within the process, with no flag on the command line.
    const asIs = fixture('a');
    expect(start(asIs.file, asIs.cache, 'save-grown-as-is')).toMatchObject({ state: 'absent', saved: true });
    expect(start(asIs.file, asIs.cache)).toMatchObject({ state: 'rejected', answer: 42 });
    // As the launcher saves: with the start's flags for that moment.
    const launcher = fixture('a');
    expect(start(launcher.file, launcher.cache, 'save-grown')).toMatchObject({ state: 'absent', saved: true });
    expect(start(launcher.file, launcher.cache)).toMatchObject({ state: 'accepted', answer: 42 });
    // An operator's own growth (a node flag, spelt either way V8 reads it) stands: the cache is
    // saved under it, and taken.
    for (const flag of ['--heap-growing-percent=50', '--heap_growing_percent=50']) {
      const operator = fixture('a');
      expect(start(operator.file, operator.cache, 'save-grown', [flag]), flag).toMatchObject({ state: 'absent', saved: true });
      expect(start(operator.file, operator.cache, 'no', [flag]), flag).toMatchObject({ state: 'accepted', answer: 42 });
    }
  });

  it("is taken under node's --use-openssl-ca, the README's way to trust a private CA (a node option, not a V8 flag)", () => {
    const { file, cache } = fixture('a');
    expect(start(file, cache, 'save-grown')).toMatchObject({ state: 'absent', saved: true });
    expect(start(file, cache, 'no', ['--use-openssl-ca'])).toMatchObject({ state: 'accepted', answer: 42 });
    // A V8 flag, on the same cache, is refused: the contrast that gives the case above its meaning.
    expect(start(file, cache, 'no', ['--max-old-space-size=128'])).toMatchObject({ state: 'rejected', answer: 42 });
  });

  it('says it could not save where the cache cannot be written, and leaves no file behind', () => {
    const { dir, file } = fixture('a');
    expect(start(file, join(dir, 'missing-directory', 'bundle.cjs.cache'), 'save')).toMatchObject({ state: 'absent', answer: 42, saved: false });
    expect(readdirSync(dir).sort()).toEqual(['beside.cjs', 'bundle.cjs']);
  });
});
