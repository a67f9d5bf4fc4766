// The package's three entries (Node CommonJS, Node ES module, browser ES module) and its
// declarations: the same names everywhere, Node's own listed apart (node-only.d.ts).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { pkg, root } from './helpers.mjs';

const entry = (file) => import(pathToFileURL(path.join(root, 'pkg', file)).href);
const exported = (module) => Object.keys(module).filter((name) => name !== 'default').sort();

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
  const nodeOnly = [...fs.readFileSync(path.join(root, 'pkg-template/node-only.d.ts'), 'utf8').matchAll(/^export declare (?:function|class|const) (\w+)/gm)].map((m) => m[1]);
  assert.deepEqual(nodeOnly, ['startRelay']);
  assert.deepEqual(web, Object.keys(pkg).filter((name) => !nodeOnly.includes(name)).sort());
  assert.deepEqual(declared('web.d.mts'), web);
});

test('the Arrow entry: the same names in Node (both formats) and browsers, declared exactly', async () => {
  const cjs = Object.keys(createRequire(import.meta.url)(path.join(root, 'pkg', 'arrow-node.cjs'))).sort();
  assert.deepEqual(cjs, ['ArrowStreamWriter', 'arrowIPC', 'compact', 'takeRows', 'toArrow', 'toParquet']);
  assert.deepEqual(exported(await entry('arrow-node.mjs')), cjs);
  assert.deepEqual(exported(await entry('arrow.mjs')), cjs);
  for (const file of ['arrow.d.cts', 'arrow.d.mts']) assert.deepEqual(declared(file), cjs, file);
  const pkgJson = JSON.parse(fs.readFileSync(path.join(root, 'pkg', 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(pkgJson.exports), ['.', './arrow', './scan-worker', './kafka_fetch_decoder_bg.wasm', './package.json']);
});
