// Shared by the node --test suites: the built package (pkg/), the corpus and the samples.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const corpusDir = path.resolve(root, '../shared/corpus');
export const pkg = createRequire(import.meta.url)(path.join(root, 'pkg'));

export function loadCapture(dir, name) {
  return {
    name,
    frame: new Uint8Array(fs.readFileSync(path.join(dir, `${name}.bin`))),
    meta: JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8')),
  };
}

export const sample = (name) => loadCapture(path.join(root, 'samples'), name);

export function corpusNames() {
  return fs.readdirSync(corpusDir).filter((f) => f.endsWith('.bin')).map((f) => f.slice(0, -4)).sort();
}

export const b64 = (u) => (u === null ? null : Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString('base64'));
