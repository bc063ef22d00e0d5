// The build `npm start` and `npm run bench` run: the gateway's sources and the packages they load,
// bundled by esbuild into dist/ as ES modules, with no plugin: every file is bundled as it is
// written, so the bundle runs the sources the tests run and each dependency's own code. What it
// earns: node loads one file instead of some six hundred, which halves the time from a start to
// its first answer. The system suites (test/system/) run this bundle, as `npm start` does.
//
// Only what changed is built: the bundle records a fingerprint of its inputs (path, size and
// modification time of every file under them), and a bundle whose fingerprint still holds is left
// alone. Several starts at once in one checkout build once: the first takes a lock, the others
// wait for it and then find the bundle current. The bundle is written to a folder of its own and
// renamed into place, so a process that loads it never reads it half-written.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOCK = join(ROOT, 'dist', '.build-lock');
/** How long a start waits for another's build before it gives up. */
const LOCK_WAIT_MS = 180_000;
/** Files every output depends on besides its sources: the compiler's settings and the lock file. */
const SHARED_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'scripts/build.mjs'];

/**
 * Packages left to node_modules, each for its reason: a native addon, or a package that looks at
 * its own CommonJS `module` object (@apollo/utils.createhash hashes with node's crypto only when
 * `module.require` exists, and would fall back to a JavaScript SHA-256 inside a bundle).
 */
const EXTERNAL = ['better-sqlite3', '@apollo/utils.createhash'];

/**
 * What is built: one entry point each, the directories whose files it is made of, and where it
 * goes. The reference service (a workspace package) is built by its own description, which it
 * exports from its package folder.
 */
const TARGETS = [{ name: 'gateway', entry: 'src/main.ts', inputs: ['src'], outfile: 'dist/main.js' }];

function filesUnder(path, into) {
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch (error) {
    if (error.code === 'ENOTDIR') return into.push(path);
    if (error.code === 'ENOENT') return undefined;
    throw error;
  }
  for (const entry of entries) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) filesUnder(child, into);
    else into.push(child);
  }
  return undefined;
}

function fingerprint(target) {
  const files = [];
  for (const input of [...SHARED_INPUTS, ...target.inputs]) filesUnder(join(ROOT, input), files);
  const hash = createHash('sha256');
  for (const file of files.sort()) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${relative(ROOT, file)}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex');
}

const stampOf = (target) => join(ROOT, `${target.outfile}.inputs`);

function isCurrent(target) {
  try {
    statSync(join(ROOT, target.outfile));
    return readFileSync(stampOf(target), 'utf8') === fingerprint(target);
  } catch {
    return false;
  }
}

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Takes the build lock: a directory, made atomically, naming the process that holds it. */
async function lock() {
  mkdirSync(dirname(LOCK), { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    // A lock whose builder died (killed mid-build) is taken over; one still being made (no pid
    // written yet) is waited for.
    let holder;
    try {
      holder = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
    } catch {
      holder = undefined;
    }
    if (holder && !processAlive(holder)) {
      rmSync(LOCK, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`another build has held ${relative(ROOT, LOCK)} for ${LOCK_WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function buildTarget(target) {
  const outfile = join(ROOT, target.outfile);
  const partial = `${outfile}.${process.pid}.partial`;
  const inputs = fingerprint(target);
  await build({
    entryPoints: [join(ROOT, target.entry)],
    outfile: partial,
    bundle: true,
    external: EXTERNAL,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // The CommonJS packages in an ES module bundle call `require` for node's own modules.
    banner: { js: "import { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);" },
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  renameSync(`${partial}.map`, `${outfile}.map`);
  // The bundle names its map by its own file name: point it at the final one.
  const code = readFileSync(partial, 'utf8').replace(/\/\/# sourceMappingURL=\S+\s*$/, `//# sourceMappingURL=${target.outfile.split('/').pop()}.map\n`);
  writeFileSync(partial, code);
  renameSync(partial, outfile);
  writeFileSync(stampOf(target), inputs);
}

export async function buildAll({ quiet = false } = {}) {
  const stale = () => TARGETS.filter((target) => !isCurrent(target));
  if (stale().length === 0) return;
  await lock();
  try {
    // Another start may have built them while this one waited.
    const todo = stale();
    if (todo.length > 0 && !quiet) process.stderr.write(`building ${todo.map((target) => target.name).join(' and ')} (sources changed since the last build)…\n`);
    for (const target of todo) await buildTarget(target);
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildAll({ quiet: process.argv.includes('--quiet') }).catch((error) => {
    process.stderr.write(`build failed: ${error.message}\n`);
    process.exit(1);
  });
}
