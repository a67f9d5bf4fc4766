// The page's elements by id, for the JS check: which kind each one is (an input, a select, a
// details) is written in www/index.html or in the page's h(tag, { id }) calls, where the checker
// cannot read it. This writes it out as a .d.ts (target/js-check/page-elements.d.ts), so that
// `$(id)` (www/page/page.js) has the element's own type and an unknown id is an error.
import fs from 'node:fs';
import path from 'node:path';
import { jsFiles } from './js-files.mjs';

/** [id, tag] of every element with a fixed id: index.html's, then the ones the page's JS makes. */
export function pageElementIds(root) {
  const found = new Map();
  const html = fs.readFileSync(path.join(root, 'www/index.html'), 'utf8');
  for (const [, tag, attrs] of html.matchAll(/<([a-z][a-z0-9-]*)\b([^>]*)>/g)) {
    const id = /\sid="([^"]+)"/.exec(attrs);
    if (id) found.set(id[1], tag);
  }
  for (const file of jsFiles(path.join(root, 'www/page'))) {
    const src = fs.readFileSync(file, 'utf8');
    // h('tag', { ..., id: 'name' }): the tag is the nearest h(' before the id (attributes come
    // before children)
    for (const m of src.matchAll(/\bid: '([\w-]+)'/g)) {
      const before = src.slice(0, m.index);
      const tag = [...before.matchAll(/\bh\(\s*'([a-z][a-z0-9-]*)'/g)].at(-1);
      if (tag && !found.has(m[1])) found.set(m[1], tag[1]);
    }
  }
  return [...found];
}

/** Writes target/js-check/page-elements.d.ts; returns how many ids it holds. */
export function writePageElements(root) {
  const ids = pageElementIds(root);
  const lines = ids.map(([id, tag]) => `  '${id}': ${tag.includes('-') ? 'HTMLElement' : `HTMLElementTagNameMap['${tag}']`};`);
  const text = [
    '// Written by scripts/page-elements.mjs from www/index.html and the page JS: do not edit.',
    'export interface PageElements {',
    ...lines,
    '}',
    '',
  ].join('\n');
  const out = path.join(root, 'target/js-check/page-elements.d.ts');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, text);
  return ids.length;
}
