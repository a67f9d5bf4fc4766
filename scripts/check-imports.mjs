// Checks that the modules of src/ import each other without a cycle: reads every `crate::` and
// `super::` path (in `use` lines and inline) and every parent's use of its child modules, outside
// test code, and fails naming the cycle if there is one. `--print` lists each module's imports.
//     node scripts/check-imports.mjs [--print]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
const state = new Map();
const stack = [];
function visit(m) {
  state.set(m, 'open');
  stack.push(m);
  for (const d of graph.get(m) ?? []) {
    if (state.get(d) === 'open') {
      const cycle = [...stack.slice(stack.indexOf(d)), d].map(label).join(' -> ');
      console.error(`import cycle among src/ modules: ${cycle}`);
      process.exit(1);
    }
    if (!state.has(d)) visit(d);
  }
  stack.pop();
  state.set(m, 'done');
}
for (const m of graph.keys()) if (!state.has(m)) visit(m);
console.log(`src/: ${graph.size} modules, no import cycle`);
