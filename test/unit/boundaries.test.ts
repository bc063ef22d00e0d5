// The two halves share nothing but the HTTP contract (ARCHITECTURE.md): no file of the gateway
// imports the reference service, directly or through another file, nor the reverse. The reference
// service is a package of its own (reference-service/); only the command, src/main.ts, loads it,
// through the package's public entry. The import graph is read statically: static imports,
// `export … from`, side-effect imports, dynamic `import('…')`, `typeof import('…')` and
// `new URL('…', import.meta.url)` (the way a module is loaded by a specifier built at run time).
// The package's name leads to the file its exports give under the `source` condition, as the type
// checker and the suites resolve it. test/ is not checked: helpers start both halves on purpose.
import { builtinModules } from 'node:module';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
const MAIN = join(SRC, 'main.ts');
const PACKAGE_NAME = 'reference-service';
const PACKAGE = join(ROOT, PACKAGE_NAME);
const PACKAGE_SRC = join(PACKAGE, 'src');

interface Manifest {
  name: string;
  exports: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
}
const MANIFEST = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as Manifest;
const GATEWAY_MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string };

const SPECIFIER_PATTERNS = [
  /\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g, // import x from '…', export { x } from '…'
  /\bimport\s*['"]([^'"]+)['"]/g, // import '…'
  /\bimport\s*\(\s*['"`]([^'"`]+)['"`]/g, // import('…'), typeof import('…')
  /\bnew\s+URL\(\s*['"`]([^'"`]+)['"`]\s*,\s*import\.meta\.url/g, // new URL('…', import.meta.url)
  /\brequire\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g, // createRequire(…)('…')
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(name) ? [path] : [];
  });
}

/** Specifiers a file names, comments stripped (a commented-out import is no import). */
function specifiersOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  return SPECIFIER_PATTERNS.flatMap((pattern) => [...code.matchAll(pattern)].map((match) => match[1]!));
}

const isRelative = (specifier: string) => specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:');
const namesPackage = (specifier: string) => specifier === PACKAGE_NAME || specifier.startsWith(`${PACKAGE_NAME}/`);

/** The source file the package's exports give for `specifier` (`reference-service[/subpath]`). */
function exportedSource(specifier: string): string {
  const target = MANIFEST.exports[`.${specifier.slice(PACKAGE_NAME.length)}`];
  const source = typeof target === 'string' ? target : target?.source;
  // A subpath the package does not export resolves to nothing: name where it would be, so that
  // the edge still crosses into the package.
  return join(PACKAGE, source ?? specifier.slice(PACKAGE_NAME.length));
}

/** The file a relative specifier or the reference package's name leads to; undefined for another package. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (namesPackage(specifier)) return exportedSource(specifier);
  if (!isRelative(specifier)) return undefined;
  const base = specifier.startsWith('file:') ? fileURLToPath(specifier) : resolve(dirname(from), specifier);
  const candidates = [base, `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? base;
}

const FILES = [...sourceFiles(SRC), ...sourceFiles(PACKAGE_SRC)];
const SPECIFIERS = new Map(FILES.map((file) => [file, specifiersOf(readFileSync(file, 'utf8'))]));
const IMPORTS = new Map<string, string[]>(
  FILES.map((file) => [file, SPECIFIERS.get(file)!.map((specifier) => resolveSpecifier(file, specifier)).filter((path): path is string => path !== undefined)]),
);

/** Every file reachable from `file` through the import graph (itself excluded). */
function reachable(file: string): Set<string> {
  const seen = new Set<string>();
  const stack = [...(IMPORTS.get(file) ?? [])];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(IMPORTS.get(next) ?? []));
  }
  seen.delete(file);
  return seen;
}

const under = (dir: string, path: string) => path.startsWith(`${dir}${sep}`);

/** gateway: src/ but the command; reference: anything in the package folder; outside: the rest. */
const half = (path: string): 'gateway' | 'reference' | 'main' | 'outside' => {
  if (path === MAIN) return 'main';
  if (under(SRC, path)) return 'gateway';
  if (under(PACKAGE, path)) return 'reference';
  return 'outside';
};

/** `file -> target` for every file of `from` that reaches a file of another half. */
function crossings(from: 'gateway' | 'reference'): string[] {
  return FILES.filter((file) => half(file) === from).flatMap((file) =>
    [...reachable(file)].filter((target) => half(target) !== from).map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`),
  );
}

describe('boundaries between the gateway and the reference service', () => {
  it('reads the import graph (both halves have files, and their internal imports are found)', () => {
    expect(FILES.filter((file) => half(file) === 'gateway').length).toBeGreaterThan(10);
    expect(FILES.filter((file) => half(file) === 'reference').length).toBeGreaterThan(10);
    expect(IMPORTS.get(join(SRC, 'gateway/server.ts'))).toContain(join(SRC, 'gateway/config.ts'));
    expect(IMPORTS.get(join(PACKAGE_SRC, 'server.ts'))).toContain(join(PACKAGE_SRC, 'storage/open-store.ts'));
    // The package's name leads to its public entry's source.
    expect(IMPORTS.get(MAIN)).toEqual(expect.arrayContaining([join(SRC, 'gateway/server.ts'), join(PACKAGE_SRC, 'index.ts')]));
  });

  it('recognizes every form of import', () => {
    const text = [
      "import { a } from '../a.ts';",
      "import type { B } from '../../b.ts';",
      "export { c } from '../c.ts';",
      "export * from '../d.ts';",
      "import './e.ts';",
      "const f = await import('../f.ts');",
      "const g = new URL('../g.ts', import.meta.url).href;",
      "import {\n  h,\n  type H,\n} from '../h.ts';",
      "type I = typeof import('../i.ts');",
      "// import { no } from '../commented.ts';",
      "/* import { no } from '../block.ts'; */",
    ].join('\n');
    expect(specifiersOf(text).sort()).toEqual(['../../b.ts', '../a.ts', '../c.ts', '../d.ts', '../f.ts', '../g.ts', '../h.ts', '../i.ts', './e.ts']);
  });

  it('follows the package name to the sources its exports give', () => {
    expect(resolveSpecifier(MAIN, PACKAGE_NAME)).toBe(join(PACKAGE_SRC, 'index.ts'));
    expect(resolveSpecifier(MAIN, `${PACKAGE_NAME}/testing`)).toBe(join(PACKAGE_SRC, 'testing.ts'));
    expect(half(resolveSpecifier(MAIN, `${PACKAGE_NAME}/src/server.ts`)!)).toBe('reference');
  });

  it('the gateway never imports the reference service, nor src/main.ts', () => {
    expect(crossings('gateway')).toEqual([]);
    const named = FILES.filter((file) => half(file) === 'gateway').flatMap((file) =>
      SPECIFIERS.get(file)!.filter(namesPackage).map((specifier) => `${relative(ROOT, file)}: ${specifier}`),
    );
    expect(named).toEqual([]);
  });

  it('would see a gateway file that imports the package', () => {
    const file = join(SRC, 'gateway/server.ts');
    const saved = IMPORTS.get(file)!;
    IMPORTS.set(file, [...saved, resolveSpecifier(file, PACKAGE_NAME)!]);
    try {
      expect(crossings('gateway')).toContain(`src/gateway/server.ts -> ${PACKAGE_NAME}/src/index.ts`);
    } finally {
      IMPORTS.set(file, saved);
    }
  });

  it('the reference service imports nothing outside its package but node and its own dependencies', () => {
    expect(crossings('reference')).toEqual([]);
    const allowed = new Set([...builtinModules, ...Object.keys(MANIFEST.dependencies ?? {})]);
    const foreign = FILES.filter((file) => half(file) === 'reference').flatMap((file) =>
      SPECIFIERS.get(file)!
        .filter((specifier) => !isRelative(specifier) && !specifier.startsWith('node:') && !allowed.has(specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')))
        .map((specifier) => `${relative(ROOT, file)}: ${specifier}`),
    );
    expect(foreign).toEqual([]);
    expect(Object.keys(MANIFEST.dependencies ?? {})).not.toContain(GATEWAY_MANIFEST.name);
  });

  it('no package specifier reaches into the other half (no path aliases around the check)', () => {
    const aliased = FILES.flatMap((file) =>
      SPECIFIERS.get(file)!
        .filter((specifier) => !isRelative(specifier) && (/(^|\/)(src|gateway|v1)(\/|$)|^#/.test(specifier) || specifier.startsWith(GATEWAY_MANIFEST.name)))
        .map((specifier) => `${relative(ROOT, file)}: ${specifier}`),
    );
    expect(aliased).toEqual([]);
  });

  it("only src/main.ts imports both halves, through the package's public entry, and nothing imports it", () => {
    const both = FILES.filter((file) => {
      const halves = new Set([...reachable(file)].map(half));
      return halves.has('gateway') && halves.has('reference');
    });
    expect(both.map((file) => relative(ROOT, file))).toEqual(['src/main.ts']);
    expect([...new Set(SPECIFIERS.get(MAIN)!.filter(namesPackage))]).toEqual([PACKAGE_NAME]);
    const importsMain = FILES.filter((file) => IMPORTS.get(file)?.includes(MAIN));
    expect(importsMain).toEqual([]);
  });
});

describe('the shape of the source', () => {
  /** One cycle of the import graph as a path of files, or undefined when there is none. */
  function findCycle(): string[] | undefined {
    const done = new Set<string>();
    const onPath: string[] = [];
    const visit = (file: string): string[] | undefined => {
      const at = onPath.indexOf(file);
      if (at >= 0) return [...onPath.slice(at), file];
      if (done.has(file)) return undefined;
      onPath.push(file);
      for (const next of IMPORTS.get(file) ?? []) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
      onPath.pop();
      done.add(file);
      return undefined;
    };
    for (const file of FILES) {
      const cycle = visit(file);
      if (cycle) return cycle.map((path) => relative(ROOT, path));
    }
    return undefined;
  }

  it('has no import cycle anywhere in src/ or the reference service (type-only imports count: they tie files together as much)', () => {
    expect(findCycle()).toBeUndefined();
  });

  it('finds a cycle when there is one', () => {
    const a = join(SRC, 'gateway/errors.ts');
    const b = join(SRC, 'gateway/upstream/outcome.ts');
    const saved = IMPORTS.get(a)!;
    IMPORTS.set(a, [...saved, b]);
    try {
      expect(findCycle()).toEqual(expect.arrayContaining(['src/gateway/errors.ts', 'src/gateway/upstream/outcome.ts']));
    } finally {
      IMPORTS.set(a, saved);
    }
  });

  it('keeps every hand-written gateway file small enough to read in one sitting', () => {
    const MAX_LINES = 300;
    const long = FILES.filter((file) => half(file) === 'gateway' && !file.includes('/generated/'))
      .map((file) => [relative(ROOT, file), readFileSync(file, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
