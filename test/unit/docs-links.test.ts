// Every relative link of the project's Markdown (the README, docs/*.md and any other tracked page)
// leads somewhere: to a file or folder of the repository, and, with a `#fragment`, to a heading of
// that page as GitHub anchors it. Links inside code blocks or inline code are not links.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const PAGES = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: REPO, encoding: 'utf8' })
  .split('\n')
  .filter((path) => path !== '' && !path.includes('node_modules/') && existsSync(join(REPO, path)));

/** The page's prose: fenced code blocks and inline code blanked out. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The targets of the page's inline links and images, `[text](target)`. */
function linksOf(text: string): string[] {
  return [...prose(text).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
}

/** The anchors GitHub gives the page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const code = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of code.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** What is wrong with each relative link of `page` (a path below the repository), as `page: target (why)`. */
function brokenLinks(page: string, text: string): string[] {
  return linksOf(text).flatMap((target) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return []; // https:, mailto:: not the repository's
    const [path, fragment] = target.split('#') as [string, string | undefined];
    if (path === '') return anchorsOf(text).has(fragment ?? '') ? [] : [`${page}: ${target} (no such heading)`];
    const file = join(REPO, dirname(page), decodeURIComponent(path));
    if (relative(REPO, file).startsWith('..')) return [`${page}: ${target} (outside the repository)`];
    if (!existsSync(file)) return [`${page}: ${target} (no such file)`];
    if (fragment === undefined || fragment === '') return [];
    if (statSync(file).isDirectory() || !file.endsWith('.md')) return [`${page}: ${target} (a fragment of a page that has no headings)`];
    return anchorsOf(readFileSync(file, 'utf8')).has(fragment) ? [] : [`${page}: ${target} (no such heading)`];
  });
}

describe("the Markdown pages' relative links", () => {
  it('reads the pages and their links (the check is not vacuous)', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'docs/deployment.md']));
    expect(PAGES.flatMap((page) => linksOf(readFileSync(join(REPO, page), 'utf8'))).length).toBeGreaterThan(20);
  });

  it.each(PAGES)('%s: every relative link leads to a file, and every fragment to a heading', (page) => {
    expect(brokenLinks(page, readFileSync(join(REPO, page), 'utf8'))).toEqual([]);
  });

  it('would see a missing file, a missing heading, and leaves code alone', () => {
    const text = '# A page\n\n## Two words, and `code`\n\n[a](nowhere.md) [b](#two-words-and-code) [c](#absent) [d](../README.md#set-up)\n\n```md\n[e](nowhere-either.md)\n```\n`[f](nor-this.md)`\n';
    expect(brokenLinks('docs/page.md', text)).toEqual(['docs/page.md: nowhere.md (no such file)', 'docs/page.md: #absent (no such heading)']);
  });
});
