// The package's three entries (Node CommonJS, Node ES module, browser ES module) and its
// declarations: the same names everywhere, Node's own listed apart (node-only.d.ts), and each
// declared class with the methods its runtime class has.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { pkg, root } from './helpers.mjs';

const entry = (file) => import(pathToFileURL(path.join(root, 'pkg', file)).href);
const exported = (module) =>
  Object.keys(module)
    .filter((name) => name !== 'default')
    .sort();

/** The values a declaration file declares (`export declare function|class|const NAME`), not its types. */
function declared(file) {
  const text = fs.readFileSync(path.join(root, 'pkg', file), 'utf8');
  return [...new Set([...text.matchAll(/^export declare (?:function|class|const|let) (\w+)/gm)].map((m) => m[1]))].sort();
}

test('the Node entries export the same names, and declare exactly those', async () => {
  const cjs = Object.keys(pkg).sort();
  const esm = await entry('node.mjs');
  assert.deepEqual(exported(esm), cjs);
  assert.equal(esm.default, esm.init, 'the default export is init, as in the browser');
  for (const name of cjs) assert.equal(esm[name], pkg[name], `${name}: one instance for both`);
  assert.deepEqual(declared('node.d.cts'), cjs);
  assert.deepEqual(declared('node.d.mts'), cjs);
});

test('the browser entry exports the Node names but the Node-only ones, and declares exactly those', async () => {
  const web = exported(await entry('web.mjs'));
  const nodeOnly = [
    ...fs.readFileSync(path.join(root, 'pkg-template/node-only.d.ts'), 'utf8').matchAll(/^export declare (?:function|class|const) (\w+)/gm),
  ].map((m) => m[1]);
  assert.deepEqual(nodeOnly, ['startRelay']);
  assert.deepEqual(
    web,
    Object.keys(pkg)
      .filter((name) => !nodeOnly.includes(name))
      .sort(),
  );
  assert.deepEqual(declared('web.d.mts'), web);
});

test('the Arrow entry: the same names in Node (both formats) and browsers, declared exactly', async () => {
  const cjs = Object.keys(createRequire(import.meta.url)(path.join(root, 'pkg', 'arrow-node.cjs'))).sort();
  assert.deepEqual(cjs, ['ArrowStreamWriter', 'arrowIPC', 'arrowLibrary', 'compact', 'takeRows', 'toArrow', 'toParquet', 'withDecoded']);
  assert.deepEqual(exported(await entry('arrow-node.mjs')), cjs);
  assert.deepEqual(exported(await entry('arrow.mjs')), cjs);
  for (const file of ['arrow.d.cts', 'arrow.d.mts']) assert.deepEqual(declared(file), cjs, file);
  const pkgJson = JSON.parse(fs.readFileSync(path.join(root, 'pkg', 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(pkgJson.exports), ['.', './arrow', './scan-worker', './kafka_fetch_decoder_bg.wasm', './package.json']);
});

/** The public members each class of a declaration file declares (read by TypeScript's parser), instance and static. */
function declaredMembers(file) {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(root, 'pkg', file), 'utf8'), ts.ScriptTarget.Latest);
  const classes = new Map();
  for (const node of source.statements) {
    if (!ts.isClassDeclaration(node)) continue;
    const members = { methods: new Set(), all: new Set(), staticMethods: new Set(), staticAll: new Set() };
    for (const m of node.members) {
      if (!m.name || ts.isComputedPropertyName(m.name)) continue; // [Symbol.*]: not in getOwnPropertyNames
      const modifiers = (ts.getModifiers(m) ?? []).map((x) => x.kind);
      if (modifiers.includes(ts.SyntaxKind.PrivateKeyword)) continue;
      const isStatic = modifiers.includes(ts.SyntaxKind.StaticKeyword);
      (isStatic ? members.staticAll : members.all).add(m.name.text);
      if (ts.isMethodDeclaration(m)) (isStatic ? members.staticMethods : members.methods).add(m.name.text);
    }
    classes.set(node.name.text, members);
  }
  return classes;
}

/** The public members of a runtime class: its prototypes' (up to Object's or Error's) and its own static ones. */
function runtimeMembers(Class) {
  const names = new Set();
  for (let p = Class.prototype; p !== Object.prototype && p !== Error.prototype; p = Object.getPrototypeOf(p)) {
    for (const name of Object.getOwnPropertyNames(p)) if (name !== 'constructor') names.add(name);
  }
  const statics = Object.getOwnPropertyNames(Class).filter((name) => !['length', 'name', 'prototype'].includes(name));
  return { names, statics };
}

test('every declared class has the methods of its runtime class, and declares every public one', () => {
  const entries = [
    ['node.d.cts', pkg],
    ['arrow.d.cts', createRequire(import.meta.url)(path.join(root, 'pkg', 'arrow-node.cjs'))],
  ];
  let classes = 0;
  for (const [file, runtime] of entries) {
    for (const [name, declared] of declaredMembers(file)) {
      classes++;
      const runtimeClass = runtime[name];
      assert.equal(typeof runtimeClass, 'function', `${file}: ${name} is exported`);
      const { names, statics } = runtimeMembers(runtimeClass);
      for (const method of declared.methods)
        assert.equal(typeof runtimeClass.prototype[method], 'function', `${file}: ${name}.${method}() is declared but not implemented`);
      for (const method of declared.staticMethods)
        assert.equal(typeof runtimeClass[method], 'function', `${file}: static ${name}.${method}() is declared but not implemented`);
      // a prototype's member (method or getter) that users can reach is declared
      for (const member of names) assert.ok(declared.all.has(member), `${file}: ${name}.${member} is implemented but not declared`);
      for (const member of statics) assert.ok(declared.staticAll.has(member), `${file}: static ${name}.${member} is implemented but not declared`);
    }
  }
  assert.ok(classes >= 10, `the classes found: ${classes}`);
});
