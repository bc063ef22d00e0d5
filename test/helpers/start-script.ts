// The node flags of `npm start` (the gateway's heap sizes), read from package.json's start script,
// so that the tests and the benchmark run dist/main.js as `npm start` does rather than a copy of
// its settings that could drift.
import { readFileSync } from 'node:fs';

const PACKAGE_JSON = new URL('../../package.json', import.meta.url);

/** The flags between `node` and `dist/main.js` in package.json's start script. */
export function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { scripts: { start: string } };
  const command = /\bnode\s+((?:--\S+\s+)*)dist\/main\.js\b/.exec(pkg.scripts.start);
  if (!command) throw new Error(`package.json's start script does not run "node [flags] dist/main.js": ${pkg.scripts.start}`);
  return command[1]!.split(/\s+/).filter(Boolean);
}
