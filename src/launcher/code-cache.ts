// A CommonJS file run the way node runs one, but compiled with V8's code cache: the bytecode of
// every function it had compiled when the cache was made, read back instead of compiled again.
// Node 20 has no code cache for ES modules, nor one for CommonJS files that it keeps by itself
// (node 22's `module.enableCompileCache`), so this does what that does, for one file.
//
// The cache file holds a SHA-1 of the source it was made for, then V8's data. V8 checks its data
// against the source's length, its own version and the flags that change code, not against the
// source's text: a rebuilt file of the same length would be given another file's bytecode. A cache
// of other source is never handed to V8 ('stale'); one V8 refuses ('rejected': another node, other
// flags) costs nothing but the compile it would have saved, and is made again.
import { isAscii } from 'node:buffer';
import { hash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import vm from 'node:vm';

/** What became of the file's cache at its compile. */
export type CodeCacheState = 'absent' | 'stale' | 'rejected' | 'accepted';

const SOURCE_HASH_BYTES = 20;

export interface CachedCommonJs {
  readonly state: CodeCacheState;
  /** Runs the file as a CommonJS module (its `require` resolves from the file's directory); returns its exports. */
  run(): unknown;
  /**
   * Writes the cache of all the file's code compiled so far, whole or not at all (a reader never
   * sees half a file). False when it could not: a read-only directory, a full disk.
   */
  save(): boolean;
}

/** Where the cache of `file` goes: beside it (each build of the gateway removes it, scripts/bundle.mjs). */
export function codeCacheFile(file: string): string {
  return `${file}.cache`;
}

export function compileCommonJs(file: string, cacheFile: string): CachedCommonJs {
  // Read as bytes: their hash costs a fifth of the hash of the text (which is encoded back to
  // UTF-8 for it), and ASCII bytes are the text already, taken without decoding (the gateway's
  // bundle is ASCII, scripts/bundle.mjs).
  const bytes = readFileSync(file);
  const sourceHash = hash('sha1', bytes, 'buffer');
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  let cachedData: Buffer | undefined;
  let state: CodeCacheState = 'absent';
  try {
    const stored = readFileSync(cacheFile);
    if (stored.subarray(0, SOURCE_HASH_BYTES).equals(sourceHash)) cachedData = stored.subarray(SOURCE_HASH_BYTES);
    else state = 'stale';
  } catch {
    // No cache yet (or none readable): compiled from the source alone.
  }
  // node's own CommonJS wrapper, on a line of its own so that the file's lines keep their numbers.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {\n${source}\n})`, {
    filename: file,
    lineOffset: -1,
    cachedData,
  });
  if (cachedData !== undefined) state = script.cachedDataRejected === true ? 'rejected' : 'accepted';

  return {
    state,
    run() {
      const module = { exports: {} as unknown };
      const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;
      wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
      return module.exports;
    },
    save() {
      const temporary = `${cacheFile}.${process.pid}.tmp`;
      try {
        writeFileSync(temporary, Buffer.concat([sourceHash, script.createCachedData()]));
        renameSync(temporary, cacheFile);
        return true;
      } catch {
        rmSync(temporary, { force: true });
        return false;
      }
    },
  };
}
