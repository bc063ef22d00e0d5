// The build `npm start`, `npm run v1` and `npm run bench` run: the gateway's sources and the
// packages they load, bundled by esbuild into dist/ as ES modules, and the reference service (a
// workspace package, built by its own description) into reference-service/dist/, with no plugin:
// every file is bundled as it is written, so the bundle runs the sources the tests run and each
// dependency's own code. What it earns: node loads one file instead of some six hundred, so a
// start reaches its first answer much sooner. The system suites (test/system/) run these
// bundles, as `npm start` does. `node scripts/build.mjs [--quiet] [target …]` builds the targets
// named (gateway, reference-service), or all of them.
//
// Only what changed is built: the bundle records a fingerprint of its inputs (path, size and
// modification time of every file under them), and a bundle whose fingerprint still holds is left
// alone. Several starts at once in one checkout build once: the first takes a lock, the others
// wait for it and then find the bundle current. The bundle is written to a folder of its own and
// renamed into place, so a process that loads it never reads it half-written.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOCK = join(ROOT, 'dist', '.build-lock');
/** How long a start waits for another's build before it gives up. */
const LOCK_WAIT_MS = 180_000;
/** Files every output depends on besides its sources: the compiler's settings and the lock file. */
const SHARED_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'scripts/build.mjs'];

/**
 * Packages left to node_modules in every bundle, each for its reason. @apollo/utils.createhash
 * looks at its own CommonJS `module` object: it hashes with node's crypto only when
 * `module.require` exists, and would fall back to a JavaScript SHA-256 inside a bundle.
 * reference-service is a separate package with its own build (below), loaded by the gateway's
 * command only for the embedded default: bundled into the gateway, its code and its database
 * driver would be part of every gateway start, and its migrations would not be found.
 * A target adds its own (a native addon, for one).
 */
const EXTERNAL = ['@apollo/utils.createhash', 'reference-service'];

/**
 * What is built: a name, the files it is made of (paths under the repository), what it leaves to
 * node_modules besides EXTERNAL, and its bundles (an entry point each, and where it goes).
 */
const GATEWAY = { name: 'gateway', inputs: ['src'], external: [], bundles: [{ entry: 'src/main.ts', outfile: 'dist/main.js' }] };

/**
 * A workspace package describes its own build in its build-target.mjs, with paths relative to its
 * folder: the package knows what it is made of, this script how bundles are made.
 */
async function workspaceTargets() {
  const { workspaces = [] } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const targets = [];
  for (const folder of workspaces) {
    const description = join(ROOT, folder, 'build-target.mjs');
    if (!existsSync(description)) continue;
    const { default: target } = await import(pathToFileURL(description).href);
    const under = (path) => join(folder, path);
    targets.push({
      name: folder,
      inputs: target.inputs.map(under),
      external: target.external ?? [],
      bundles: target.bundles.map(({ entry, outfile }) => ({ entry: under(entry), outfile: under(outfile) })),
    });
  }
  return targets;
}

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

const stampOf = (bundle) => join(ROOT, `${bundle.outfile}.inputs`);

function isCurrent(target) {
  const inputs = fingerprint(target);
  try {
    return target.bundles.every((bundle) => statSync(join(ROOT, bundle.outfile)) && readFileSync(stampOf(bundle), 'utf8') === inputs);
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
  const inputs = fingerprint(target);
  for (const bundle of target.bundles) await buildBundle(bundle, [...EXTERNAL, ...target.external], inputs);
}

async function buildBundle(bundle, external, inputs) {
  const outfile = join(ROOT, bundle.outfile);
  const partial = `${outfile}.${process.pid}.partial`;
  await build({
    entryPoints: [join(ROOT, bundle.entry)],
    outfile: partial,
    bundle: true,
    external,
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
  const code = readFileSync(partial, 'utf8').replace(/\/\/# sourceMappingURL=\S+\s*$/, `//# sourceMappingURL=${bundle.outfile.split('/').pop()}.map\n`);
  writeFileSync(partial, code);
  renameSync(partial, outfile);
  writeFileSync(stampOf(bundle), inputs);
}

/**
 * What the gateway reports as its build (/version, /healthz, the banner, `build_info`): the
 * commit (GIT_COMMIT, as a container build passes it, or the checkout's HEAD) and when it was built.
 */
function writeBuildInfo() {
  let commit = process.env.GIT_COMMIT || null;
  if (!commit) {
    try {
      commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
    } catch {
      commit = null; // no git, or not a checkout (a source archive)
    }
  }
  writeFileSync(join(ROOT, 'dist', 'build-info.json'), `${JSON.stringify({ commit, builtAt: new Date().toISOString() })}\n`);
}

/** Builds the targets named (every target when none is), those whose inputs changed. */
export async function buildAll({ quiet = false, only = [] } = {}) {
  const targets = [GATEWAY, ...(await workspaceTargets())];
  const unknown = only.filter((name) => !targets.some((target) => target.name === name));
  if (unknown.length > 0) throw new Error(`no target named ${unknown.join(', ')} (targets: ${targets.map((target) => target.name).join(', ')})`);
  const chosen = only.length === 0 ? targets : targets.filter((target) => only.includes(target.name));
  const stale = () => chosen.filter((target) => !isCurrent(target));
  if (stale().length === 0) return;
  await lock();
  try {
    // Another start may have built them while this one waited.
    const todo = stale();
    if (todo.length > 0 && !quiet) {
      // A fresh clone's first start spends some seconds here: say so, and that it happens once.
      const first = !existsSync(join(ROOT, GATEWAY.bundles[0].outfile));
      const what = todo.map((target) => target.name).join(' and ');
      process.stderr.write(first ? `first start: building ${what} into dist/ (a few seconds; later starts rebuild only what changed)…\n` : `building ${what} (sources changed since the last build)…\n`);
    }
    for (const target of todo) await buildTarget(target);
    if (todo.includes(GATEWAY)) writeBuildInfo();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  buildAll({ quiet: args.includes('--quiet'), only: args.filter((arg) => !arg.startsWith('--')) }).catch((error) => {
    process.stderr.write(`build failed: ${error.message}\n`);
    process.exit(1);
  });
}
