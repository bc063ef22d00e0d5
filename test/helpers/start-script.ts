// The node flags of `npm start` (none now: src/launcher/heap-growth.ts says why) and the
// environment it sets (the C library's memory arenas), read from package.json's start script, so
// that the tests and the benchmark run dist/main.cjs as `npm start` does rather than a copy of its
// settings that could drift.
import { readFileSync } from 'node:fs';

const PACKAGE_JSON = new URL('../../package.json', import.meta.url);

/** `[NAME=value ...] node [flags] dist/main.cjs`, the command at the end of the start script. */
function startCommand(): { env: string; flags: string } {
  const pkg = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { scripts: { start: string } };
  const command = /(?:^|&&\s*)((?:[A-Z_][A-Z0-9_]*=\S+\s+)*)node\s+((?:--\S+\s+)*)dist\/main\.cjs\s*$/.exec(pkg.scripts.start);
  if (!command) throw new Error(`package.json's start script does not end with "[NAME=value] node [flags] dist/main.cjs": ${pkg.scripts.start}`);
  return { env: command[1]!, flags: command[2]! };
}

/** The flags between `node` and `dist/main.cjs` in package.json's start script. */
export function startFlags(): string[] {
  return startCommand().flags.split(/\s+/).filter(Boolean);
}

/** The variables the start script sets for node (`NAME=value` before it). */
export function startEnv(): Record<string, string> {
  const assignments = startCommand().env.split(/\s+/).filter(Boolean);
  return Object.fromEntries(assignments.map((assignment) => [assignment.slice(0, assignment.indexOf('=')), assignment.slice(assignment.indexOf('=') + 1)]));
}

/** The start script's command as a log line shows it: `NAME=value node flags dist/main.cjs`. */
export function startCommandLine(extraFlags: readonly string[] = []): string {
  const env = Object.entries(startEnv()).map(([name, value]) => `${name}=${value} `);
  return `${env.join('')}node ${[...startFlags(), ...extraFlags].join(' ')} dist/main.cjs`;
}
