// The two halves share nothing but the HTTP contract (ARCHITECTURE.md): no file of the gateway
// imports the reference service, directly or through another file, nor the reverse. Only the
// command, src/main.ts, knows both. The import graph is read statically: static imports,
// `export … from`, side-effect imports, dynamic `import('…')` and `new URL('…', import.meta.url)`
// (the way a module is loaded by a specifier built at run time). test/ is not checked: helpers
// start both halves on purpose.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
const MAIN = join(SRC, 'main.ts');

const SPECIFIER_PATTERNS = [
  /\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g, // import x from '…', export { x } from '…'
  /\bimport\s*['"]([^'"]+)['"]/g, // import '…'
  /\bimport\s*\(\s*['"`]([^'"`]+)['"`]/g, // import('…')
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

/** The file a relative specifier names; undefined for a package. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.') && !specifier.startsWith('/') && !specifier.startsWith('file:')) return undefined;
  const base = specifier.startsWith('file:') ? fileURLToPath(specifier) : resolve(dirname(from), specifier);
  const candidates = [base, `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? base;
}

const FILES = sourceFiles(SRC);
const IMPORTS = new Map<string, string[]>(
  FILES.map((file) => [
    file,
    specifiersOf(readFileSync(file, 'utf8'))
      .map((specifier) => resolveSpecifier(file, specifier))
      .filter((path): path is string => path !== undefined),
  ]),
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

const half = (path: string): 'gateway' | 'v1' | 'main' | 'other' => {
  const rel = relative(SRC, path);
  if (rel.startsWith(`gateway/`)) return 'gateway';
  if (rel.startsWith(`v1/`)) return 'v1';
  return path === MAIN ? 'main' : 'other';
};

function crossings(from: 'gateway' | 'v1'): string[] {
  return FILES.filter((file) => half(file) === from).flatMap((file) =>
    [...reachable(file)]
      .filter((target) => half(target) !== from)
      .map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`),
  );
}

describe('boundaries between the gateway and the reference service', () => {
  it('reads the import graph (both halves have files, and their internal imports are found)', () => {
    expect(FILES.filter((file) => half(file) === 'gateway').length).toBeGreaterThan(10);
    expect(FILES.filter((file) => half(file) === 'v1').length).toBeGreaterThan(10);
    expect(IMPORTS.get(join(SRC, 'gateway/server.ts'))).toContain(join(SRC, 'gateway/config.ts'));
    // Modules loaded by a specifier built at run time are edges too.
    expect(IMPORTS.get(join(SRC, 'v1/server.ts'))).toContain(join(SRC, 'v1/seed/index.ts'));
    expect(IMPORTS.get(MAIN)).toEqual(expect.arrayContaining([join(SRC, 'gateway/server.ts'), join(SRC, 'v1/server.ts')]));
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
      "// import { no } from '../commented.ts';",
      "/* import { no } from '../block.ts'; */",
    ].join('\n');
    expect(specifiersOf(text).sort()).toEqual(['../b.ts', './a.ts', './c.ts', './d.ts', './e.ts', './f.ts', './g.ts', './h.ts']);
  });

  it('the gateway never imports the reference service, nor src/main.ts', () => {
    expect(crossings('gateway')).toEqual([]);
  });

  it('the reference service never imports the gateway, nor src/main.ts', () => {
    expect(crossings('v1')).toEqual([]);
  });

  it('no package specifier reaches into the other half (no path aliases around the check)', () => {
    const aliased = FILES.flatMap((file) =>
      specifiersOf(readFileSync(file, 'utf8'))
        .filter((specifier) => !specifier.startsWith('.') && /(^|\/)(src|gateway|v1)(\/|$)|^#/.test(specifier))
        .map((specifier) => `${relative(ROOT, file)}: ${specifier}`),
    );
    expect(aliased).toEqual([]);
  });

  it('only src/main.ts imports both halves, and nothing imports it', () => {
    const both = FILES.filter((file) => {
      const halves = new Set([...reachable(file)].map(half));
      return halves.has('gateway') && halves.has('v1');
    });
    expect(both.map((file) => relative(ROOT, file))).toEqual(['src/main.ts']);
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

  it('has no import cycle anywhere in src/ (type-only imports count: they tie files together as much)', () => {
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
