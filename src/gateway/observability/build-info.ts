// What an operator asks of a running gateway first: which build is this? The version is the
// package's; the commit and the build time are what `node scripts/build.mjs` recorded in
// dist/build-info.json beside the bundle (from GIT_COMMIT or the checkout's git). Run from the
// sources (tests, `npm run dev`), there is no build: both are null.
import { readFileSync } from 'node:fs';
import { projectPath } from '../project-path.ts';

export interface BuildInfo {
  version: string;
  commit: string | null;
  builtAt: string | null;
  node: string;
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(projectPath(path), 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value.slice(0, 100) : null);

/** Read once per process: it does not change while the process runs. */
let cached: BuildInfo | undefined;

export function buildInfo(): BuildInfo {
  if (cached) return cached;
  const built = readJson('dist/build-info.json');
  cached = {
    version: text(readJson('package.json')?.version) ?? '0.0.0',
    commit: text(built?.commit),
    builtAt: text(built?.builtAt),
    node: process.version,
  };
  return cached;
}

/** One line for the banner: `version 0.1.0 (commit 1a2b3c4, built 2026-…, node v20.19.0)`. */
export function describeBuild(info: BuildInfo = buildInfo()): string {
  const parts = [info.commit ? `commit ${info.commit}` : 'from sources', ...(info.builtAt ? [`built ${info.builtAt}`] : []), `node ${info.node}`];
  return `version ${info.version} (${parts.join(', ')})`;
}
