// The layers below the domains import nothing from above (ARCHITECTURE.md): the upstream transport
// knows no domain and no feature (a response cache plugs in through its CallerCache), the response
// cache knows no domain (each domain declares its routes' rules), and the shared Redis connection
// knows no response cache (the cache builds its adapter from the connection).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const GATEWAY = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../src/gateway');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The gateway files `file` imports (statically, by type, or dynamically), as paths below src/gateway. */
function importsOf(file: string): string[] {
  const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const specifiers = [...code.matchAll(/\bfrom\s*['"](\.[^'"]+)['"]|\bimport\s*\(?\s*['"](\.[^'"]+)['"]/g)].map((match) => match[1] ?? match[2]!);
  return specifiers.map((specifier) => relative(GATEWAY, resolve(dirname(file), specifier)));
}

function importsFrom(folder: string): { file: string; target: string }[] {
  return filesUnder(join(GATEWAY, folder)).flatMap((file) => importsOf(file).map((target) => ({ file: relative(GATEWAY, file), target })));
}

describe('the layers below the domains', () => {
  it('reads imports (the check is not vacuous)', () => {
    expect(importsFrom('upstream').map(({ target }) => target)).toContain('errors.ts');
    expect(importsFrom('response-cache').map(({ target }) => target)).toContain('upstream/call-types.ts');
  });

  it('upstream/ imports only itself and the gateway’s error codes', () => {
    expect(importsFrom('upstream').filter(({ target }) => !target.startsWith('upstream/') && target !== 'errors.ts')).toEqual([]);
  });

  it('response-cache/ imports no domain', () => {
    expect(importsFrom('response-cache').filter(({ target }) => target.startsWith('domains/'))).toEqual([]);
  });

  it('shared-state/ imports nothing of the response cache', () => {
    expect(importsFrom('shared-state').filter(({ target }) => target.startsWith('response-cache/'))).toEqual([]);
  });
});
