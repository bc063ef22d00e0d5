// The guides (the README and docs/*.md) show the front end's client code as copies of the files
// under examples/front-end/ (which test/integration/front-end-snippets.test.ts type-checks and
// runs): each block marked `<!-- path -->` must equal its file, and every example file must be
// shown. A block marked `<!-- path#field -->` shows one field of a JSON file.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const GUIDES = ['README.md', ...readdirSync(join(REPO, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const TEXT = GUIDES.map((guide) => readFileSync(join(REPO, guide), 'utf8')).join('\n');
const BLOCK = /<!-- (examples\/[^\s#]+)(?:#(\w+))? -->\n```\w*\n([\s\S]*?)```/g;
const blocks = [...TEXT.matchAll(BLOCK)].map(([, path, field, body]) => ({ path: path!, field, body: body! }));

describe("the guides' example blocks", () => {
  it.each(blocks.map((block) => [`${block.path}${block.field ? `#${block.field}` : ''}`, block] as const))('%s equals its file', (_name, block) => {
    const file = readFileSync(join(REPO, block.path), 'utf8');
    if (block.field) expect(JSON.parse(`{${block.body}}`)[block.field]).toEqual(JSON.parse(file)[block.field]);
    else expect(block.body).toBe(file);
  });

  it('show every client file of the front-end example', () => {
    const shown = new Set(blocks.map((block) => block.path));
    // devices.ts and codegen.ts are linked from the guide rather than copied into it.
    const files = readdirSync(join(REPO, 'examples/front-end/src'))
      .filter((name) => name.endsWith('.ts') && name !== 'devices.ts')
      .map((name) => `examples/front-end/src/${name}`);
    expect(files.filter((file) => !shown.has(file))).toEqual([]);
    expect(shown.has('examples/front-end/package.json')).toBe(true);
  });
});
