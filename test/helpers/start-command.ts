// The command as `npm start` runs it, read from package.json's start script so that the system
// suites and the benchmark run what an operator runs rather than a copy that could drift: the
// build (scripts/build.mjs, which rebuilds only what changed), then the bundle under plain node.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** What the start script builds and runs. */
export const BUNDLE = join(REPO, 'dist', 'main.js');
const BUILD_SCRIPT = 'scripts/build.mjs';
/** A fresh clone bundles everything; a later build only what changed. */
const BUILD_TIMEOUT_MS = 180_000;

/** `node scripts/build.mjs && [NAME=value ...] node [flags] dist/main.js`: the start script's parts. */
function startCommand(): { env: string; flags: string } {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const command = /^node scripts\/build\.mjs && ((?:[A-Z_][A-Z0-9_]*=\S+\s+)*)node\s+((?:--\S+\s+)*)dist\/main\.js\s*$/.exec(pkg.scripts.start);
  if (!command) throw new Error(`package.json's start script is not "node ${BUILD_SCRIPT} && [NAME=value] node [flags] dist/main.js": ${pkg.scripts.start}`);
  return { env: command[1]!, flags: command[2]! };
}

/** The flags between `node` and `dist/main.js` in package.json's start script. */
export function startFlags(): string[] {
  return startCommand().flags.split(/\s+/).filter(Boolean);
}

/** The variables the start script sets for node (`NAME=value` before it). */
export function startEnv(): Record<string, string> {
  const assignments = startCommand().env.split(/\s+/).filter(Boolean);
  return Object.fromEntries(assignments.map((assignment) => [assignment.slice(0, assignment.indexOf('=')), assignment.slice(assignment.indexOf('=') + 1)]));
}

/** The start script's command as a log line shows it: `NAME=value node flags dist/main.js`. */
export function startCommandLine(extraFlags: readonly string[] = []): string {
  const env = Object.entries(startEnv()).map(([name, value]) => `${name}=${value} `);
  return `${env.join('')}node ${[...startFlags(), ...extraFlags].join(' ')}`.trimEnd() + ' dist/main.js';
}

/** Runs the start script's build, as `npm start` does before it runs the bundle. */
export async function buildAsStartDoes(cwd = REPO): Promise<void> {
  await promisify(execFile)(process.execPath, [BUILD_SCRIPT, '--quiet'], { cwd, timeout: BUILD_TIMEOUT_MS });
}
