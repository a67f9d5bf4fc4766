// Shared by the node --test suites: the built package (pkg/), the corpus and the samples.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const corpusDir = path.resolve(root, '../shared/corpus');
export const pkg = createRequire(import.meta.url)(path.join(root, 'pkg'));
/** The wasm-bindgen glue the package loaded (pkg/kafka_fetch_decoder.js), for tests that make its calls fail. */
export const wasmBindings = createRequire(import.meta.url)(path.join(root, 'pkg/kafka_fetch_decoder.js'));

/**
 * Runs `run` while `owner[name]` (a binding, or a WasmDecoder method on its prototype) panics for
 * real inside wasm: it asks for an input buffer of 4 GiB - 1, past what wasm32 can hold ("capacity
 * overflow"). The panic hook's console output is kept quiet meanwhile; both are put back after.
 */
export async function withRealPanic(owner, name, run) {
  const real = owner[name];
  const print = console.error;
  owner[name] = () => new wasmBindings.WasmDecoder().input_buffer(2 ** 32 - 1);
  console.error = () => {};
  try {
    return await run();
  } finally {
    owner[name] = real;
    console.error = print;
  }
}

/** The built package packed by npm into `dir`: the tarball's path. */
export function packPackage(dir) {
  const out = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: path.join(root, 'pkg') }).toString());
  return path.join(dir, out[0].filename);
}

/** `tarball` unpacked as `project`'s node_modules/kafka-fetch-decoder, where npm would install it; returns that folder. */
export function installPacked(tarball, project) {
  const installed = path.join(project, 'node_modules/kafka-fetch-decoder');
  fs.mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  return installed;
}

export function loadCapture(dir, name) {
  return {
    name,
    frame: new Uint8Array(fs.readFileSync(path.join(dir, `${name}.bin`))),
    meta: JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8')),
  };
}

export const sample = (name) => loadCapture(path.join(root, 'samples'), name);

export function corpusNames() {
  return fs
    .readdirSync(corpusDir)
    .filter((f) => f.endsWith('.bin'))
    .map((f) => f.slice(0, -4))
    .sort();
}

export const b64 = (u) => (u === null ? null : Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString('base64'));
