// The README states the Node.js engine (package.json `engines`); every package the lock file
// installs must support it, so that `npm ci` on that Node prints no EBADENGINE warning and nothing
// runs on a Node its authors do not support.
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean }>;
};

describe('engines', () => {
  it('every locked package supports the Node.js the project states, and the one running', () => {
    const stated = semver.minVersion(pkg.engines.node)!.version;
    const unsupported: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!path || range === undefined) continue;
      for (const node of [stated, process.versions.node]) {
        if (!semver.satisfies(node, range, { includePrerelease: true, loose: true })) unsupported.push(`${path}@${entry.version}: node ${range} (not ${node})`);
      }
    }
    expect(unsupported).toEqual([]);
  });
});
