// Checks that modules import each other without a cycle, and fails naming the cycle if there is one:
// - src/: every `crate::` and `super::` path (in `use` lines and inline) and every parent's use of its
//   child modules, outside test code;
// - the JS of the package (pkg-template/) and of the page (www/): every relative `import`/`export
//   ... from`, `import()` and `require()` (a worker started from a URL is another thread's module
//   graph, not an import). A module of www/ imports only from its own thread's folder (page/,
//   workers/NAME/) and shared/, and a panel of the page (www/page/NAME/) imports no other panel.
//   The page may reach the package only through its published exports
//   (pkg-template/package.json's "exports"), as a user's page would.
// `--print` lists each module's imports.
//     node scripts/check-imports.mjs [--print]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsFiles } from './js-files.mjs';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');

/** Module path ('' for the crate root) of every .rs file under src/. */
function modules(dir = src, prefix = []) {
  const out = new Map();
  for (const f of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, f.name);
    if (f.isDirectory()) {
      for (const [k, v] of modules(file, [...prefix, f.name])) out.set(k, v);
    } else if (f.name.endsWith('.rs')) {
      const name = f.name.slice(0, -3);
      const parts = name === 'mod' || (name === 'lib' && prefix.length === 0) ? prefix : [...prefix, name];
      out.set(parts.join('::'), file);
    }
  }
  return out;
}

/** The code of a file without comments, strings and its test module. */
function code(file) {
  let text = fs.readFileSync(file, 'utf8');
  const tests = text.search(/^#\[cfg\([^\n]*test[^\n]*\)\]\s*\nmod tests/m);
  if (tests >= 0) text = text.slice(0, tests);
  return text.replace(/\/\/[^\n]*/g, '').replace(/"(?:\\.|[^"\\])*"/g, '""');
}

const mods = modules();
/** The longest module that `parts` (an absolute path) names or reaches into. */
function resolveModule(parts) {
  for (let n = parts.length; n >= 0; n--) {
    const key = parts.slice(0, n).join('::');
    if (mods.has(key)) return key;
  }
  return '';
}

/** Expands `use a::{b, c::{d}}` trees into flat paths. */
function expand(tree) {
  const brace = tree.indexOf('{');
  if (brace < 0) return [tree.trim()];
  const head = tree.slice(0, brace);
  const inner = tree.slice(brace + 1, tree.lastIndexOf('}'));
  const items = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= inner.length; i++) {
    const c = inner[i];
    if (c === '{') depth++;
    if (c === '}') depth--;
    if ((c === ',' && depth === 0) || i === inner.length) {
      if (inner.slice(start, i).trim()) items.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  return items.flatMap((item) => expand(head + item));
}

const graph = new Map();
for (const [mod, file] of mods) {
  const here = mod ? mod.split('::') : [];
  const isDirModule = file.endsWith('mod.rs') || file.endsWith('lib.rs');
  // `super` of a file module is its parent; of a mod.rs it is the parent's parent
  const parentOf = isDirModule ? here.slice(0, -1) : here.slice(0, -1);
  const text = code(file);
  const deps = new Set();
  const add = (parts) => {
    const target = resolveModule(parts);
    if (target !== mod) deps.add(target);
  };
  const paths = [];
  for (const m of text.matchAll(/\buse\s+([^;]+);/g)) paths.push(...expand(m[1].replace(/\s+/g, ' ')));
  for (const m of text.matchAll(/\b((?:crate|super)(?:::\w+)+)/g)) paths.push(m[1]);
  for (const p of paths) {
    const parts = p.split(/\s*::\s*/).map((s) => s.replace(/\s+as\s+\w+$/, ''));
    if (parts[0] === 'crate') add(parts.slice(1));
    else if (parts[0] === 'super') add([...parentOf, ...parts.slice(1)]);
  }
  // a parent uses the child modules it declares (`mod child;`) and those it names
  for (const m of text.matchAll(/^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;/gm)) {
    const child = [...here, m[1]].join('::');
    if (mods.has(child)) deps.add(child);
  }
  const childPrefix = here.length ? `${mod}::` : '';
  for (const other of mods.keys()) {
    if (!other.startsWith(childPrefix) || other === mod) continue;
    const rest = other.slice(childPrefix.length);
    if (rest.includes('::')) continue;
    if (new RegExp(`\\b${rest}::`).test(text)) deps.add(other);
  }
  graph.set(mod, deps);
}

const label = (m) => m || 'lib';
if (process.argv.includes('--print')) {
  for (const [m, deps] of [...graph].sort()) console.log(`${label(m)} -> ${[...deps].map(label).sort().join(', ')}`);
}

// depth-first search for a back edge
/** Fails naming a cycle of `graph` if there is one (`what` names the modules in the message). */
function checkAcyclic(graph, what, name) {
  const state = new Map();
  const stack = [];
  function visit(m) {
    state.set(m, 'open');
    stack.push(m);
    for (const d of graph.get(m) ?? []) {
      if (state.get(d) === 'open') {
        const cycle = [...stack.slice(stack.indexOf(d)), d].map(name).join(' -> ');
        console.error(`import cycle among ${what}: ${cycle}`);
        process.exit(1);
      }
      if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(m, 'done');
  }
  for (const m of graph.keys()) if (!state.has(m)) visit(m);
}
checkAcyclic(graph, 'src/ modules', label);
console.log(`src/: ${graph.size} modules, no import cycle`);

// --- the JS of the package and the page ---
const root = path.dirname(src);
/** A file's code without comments (strings kept: they hold the specifiers). */
const jsCode = (file) =>
  fs
    .readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[\s;{}])\/\/.*$/gm, '$1');
/** Every module specifier a file imports (statically, dynamically or by require). */
function specifiers(text) {
  const found = [];
  for (const re of [
    /(?:^|[\s;}])(?:import|export)\s[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]/g,
    /(?:^|[\s;}])import\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\bimport\(\s*new URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)(?:\.href)?\s*\)/g,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
  ])
    for (const m of text.matchAll(re)) found.push(m[1]);
  return found;
}
const pkgDir = path.join(root, 'pkg-template');
const wwwDir = path.join(root, 'www');
const builtPkg = path.join(root, 'pkg');
const jsGraph = new Map();
const JS = /\.(mjs|cjs|js)$/;
const skip = ['node_modules', 'vendor'];
const files = [...jsFiles(pkgDir, skip), ...jsFiles(wwwDir, skip)];
for (const file of files) {
  const deps = new Set();
  for (const spec of specifiers(jsCode(file))) {
    if (!spec.startsWith('.')) continue;
    let target = path.resolve(path.dirname(file), spec);
    // the page imports the built package (pkg/), which is pkg-template/ plus generated files
    if (target.startsWith(builtPkg + path.sep)) target = path.join(pkgDir, path.relative(builtPkg, target));
    deps.add(target);
  }
  // URLs into the package (`new URL('web.mjs', PKG)` with PKG = new URL('../pkg/', import.meta.url)):
  // the page's lazy imports of it; worker scripts of the page's own are not imports
  const text = jsCode(file);
  const bases = new Map();
  for (const m of text.matchAll(/\b(\w+)\s*=\s*new URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g)) {
    bases.set(m[1], new URL(m[2], `file://${file}`));
  }
  const urls = [...text.matchAll(/new URL\(\s*['"]([^'"]+)['"]\s*,\s*(import\.meta\.url|\w+)\s*\)/g)].map((m) =>
    m[2] === 'import.meta.url' ? new URL(m[1], `file://${file}`) : bases.has(m[2]) ? new URL(m[1], bases.get(m[2])) : null,
  );
  for (const url of urls) {
    if (!url || !JS.test(url.pathname)) continue;
    const target = url.pathname.startsWith(builtPkg + path.sep) ? path.join(pkgDir, path.relative(builtPkg, url.pathname)) : url.pathname;
    if (target.startsWith(pkgDir + path.sep) && file.startsWith(wwwDir + path.sep)) deps.add(target);
  }
  jsGraph.set(file, deps);
}
const rel = (f) => path.relative(root, f);
if (process.argv.includes('--print')) {
  for (const [m, deps] of jsGraph) console.log(`${rel(m)} -> ${[...deps].map(rel).join(', ')}`);
}
checkAcyclic(jsGraph, 'JS modules', rel);

// The page's folders name the thread a module runs on (www/page/, www/workers/NAME/) or say it runs on
// any (www/shared/): a module imports from its own thread and shared/ only, and shared/ from shared/.
const thread = (f) => {
  const parts = path.relative(wwwDir, f).split(path.sep);
  return parts[0] === 'workers' ? parts.slice(0, 2).join('/') : parts[0];
};
const crossing = [];
for (const [file, deps] of jsGraph) {
  if (!file.startsWith(wwwDir + path.sep)) continue;
  for (const d of deps) {
    if (!d.startsWith(wwwDir + path.sep) || thread(d) === thread(file) || thread(d) === 'shared') continue;
    crossing.push(`${rel(file)} imports ${rel(d)}`);
  }
}
if (crossing.length) {
  console.error(
    `a module of the page imports another thread's (start a worker from its URL, or move a pure module to www/shared/):\n  ${crossing.join('\n  ')}`,
  );
  process.exit(1);
}

// The page's panels (a folder each under www/page/) never import one another: they meet through
// page/view-state.js's events. What they all use is in page/ itself, page/widgets/ and page/values/.
const PAGE = path.join(wwwDir, 'page');
const PAGE_COMMON = new Set(['widgets', 'values']);
const panelOf = (f) => {
  const parts = path.relative(PAGE, f).split(path.sep);
  return parts.length > 1 && !parts[0].startsWith('..') ? parts[0] : null;
};
const panelImports = [];
for (const [file, deps] of jsGraph) {
  const panel = panelOf(file);
  if (!panel) continue;
  for (const d of deps) {
    const other = panelOf(d);
    if (other && other !== panel && !PAGE_COMMON.has(other)) panelImports.push(`${rel(file)} imports ${rel(d)}`);
  }
}
if (panelImports.length) {
  console.error(`a panel of the page imports another (announce and listen through page/view-state.js):\n  ${panelImports.join('\n  ')}`);
  process.exit(1);
}

// The page reaches the package only by what package.json exports (its dev server, a Node program
// in scripts/, is no part of it).
const exported = new Set();
(function collect(entry) {
  if (typeof entry === 'string') exported.add(path.join(pkgDir, entry));
  else if (entry && typeof entry === 'object') Object.values(entry).forEach(collect);
})(JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).exports);
const private_ = [];
for (const [file, deps] of jsGraph) {
  if (!file.startsWith(wwwDir + path.sep)) continue;
  for (const d of deps) if (d.startsWith(pkgDir + path.sep) && !exported.has(d)) private_.push(`${rel(file)} imports ${rel(d)}`);
}
if (private_.length) {
  console.error(`the page imports files the package does not export:\n  ${private_.join('\n  ')}`);
  process.exit(1);
}
console.log(`pkg-template/ and www/: ${jsGraph.size} JS modules, no import cycle, the page on the package's exports only`);
