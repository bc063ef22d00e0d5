// Files of the project that the gateway reads at run time (its SDL, GraphiQL's page files), found
// from the project's root: the nearest directory above this module that holds package.json. The
// same code runs from src/ (tsx), from tsc's dist/ tree and from the bundle in dist/ (npm start),
// each at another depth, so a path relative to the module itself would be right in only one.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

function projectRoot(): string {
  if (root !== undefined) return root;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return (root = dir);
    if (dirname(dir) === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
  }
}

/** The absolute path of `relative` (slash-separated, from the project's root). */
export function projectPath(relative: string): string {
  return join(projectRoot(), ...relative.split('/'));
}
