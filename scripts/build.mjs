// npm run build: release wasm build -> wasm-bindgen (Node CommonJS + web ESM glue) -> wasm-opt -O1
// -> the npm package in pkg/, assembled from pkg-template/.
// --bench: the same package with the cargo feature `bench` (the decompression-only reference
// export the benchmark times), in pkg-bench/; the published package never has that export.
// wasm-opt comes from the npm `binaryen` package (Debian's older one writes a broken module), at
// -O1: higher levels make the zstd decoder ~20% slower in wasm.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildVendor } from './vendor/build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bench = process.argv.includes('--bench');
const pkg = path.join(root, bench ? 'pkg-bench' : 'pkg');
const crate = 'kafka_fetch_decoder';
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });

// --if-needed (used before the demo): nothing to do when pkg/ is newer than every input.
if (process.argv.includes('--if-needed') && fs.existsSync(path.join(pkg, 'package.json'))) {
  const newest = (p) => {
    const s = fs.statSync(p);
    return s.isDirectory() ? Math.max(0, ...fs.readdirSync(p).map((f) => newest(path.join(p, f)))) : s.mtimeMs;
  };
  const inputs = ['src', 'pkg-template', 'www', 'Cargo.toml', 'Cargo.lock', 'scripts/build.mjs'].map((p) => path.join(root, p));
  if (Math.max(...inputs.map(newest)) < fs.statSync(path.join(pkg, 'package.json')).mtimeMs) process.exit(0);
}

run('cargo', ['build', '--release', '--lib', '--target', 'wasm32-unknown-unknown', ...(bench ? ['--features', 'bench'] : [])]);
const built = path.join(root, 'target/wasm32-unknown-unknown/release', `${crate}.wasm`);

fs.rmSync(pkg, { recursive: true, force: true });
fs.mkdirSync(pkg, { recursive: true });
// A trap (a panic: a bug) leaves the instance's stack pointer where it was, so that about 2,000 of
// them used up the 1 MiB stack and every later call failed: the glue gets __wbg_reset_state, a fresh
// instance of the compiled module, which the JS layer calls after a trap (decoder/engine.mjs).
const glue = ['--experimental-reset-state-function', '--out-name', crate, built];
// at the package root, so that even node10 resolution finds the .wasm subpath
run('wasm-bindgen', ['--target', 'nodejs', '--out-dir', pkg, ...glue]);
// The web glue shares the Node build's .wasm (byte-identical for the same out-name), so only its
// JS is kept.
const webTmp = fs.mkdtempSync(path.join(pkg, '.web-'));
run('wasm-bindgen', ['--target', 'web', '--out-dir', webTmp, ...glue]);
if (!fs.readFileSync(path.join(webTmp, `${crate}_bg.wasm`)).equals(fs.readFileSync(path.join(pkg, `${crate}_bg.wasm`)))) {
  throw new Error('the web and Node builds produced different .wasm files');
}
fs.copyFileSync(path.join(webTmp, `${crate}.js`), path.join(pkg, `${crate}_web.mjs`));
// its declarations type the glue for the JS check (tsconfig.check.json), not the package's users
if (!bench) {
  fs.mkdirSync(path.join(root, 'target', 'js-check'), { recursive: true });
  fs.copyFileSync(path.join(webTmp, `${crate}.d.ts`), path.join(root, 'target', 'js-check', 'wasm-glue.d.ts'));
}
fs.rmSync(webTmp, { recursive: true });
// the glue's own declarations are not the package's: the .wasm subpath is typed as its URL
for (const f of [`${crate}.d.ts`, `${crate}_bg.wasm.d.ts`]) fs.rmSync(path.join(pkg, f), { force: true });

const wasmFile = path.join(pkg, `${crate}_bg.wasm`);
const wasmOpt = path.join(root, 'node_modules/.bin/wasm-opt');
run(wasmOpt, [
  '-O1',
  '--enable-reference-types',
  '--enable-bulk-memory',
  '--enable-nontrapping-float-to-int',
  '--enable-sign-ext',
  '--enable-mutable-globals',
  '--enable-multivalue',
  '--enable-simd',
  wasmFile,
  '-o',
  wasmFile,
]);

const template = path.join(root, 'pkg-template');
for (const f of fs.readdirSync(template)) {
  fs.cpSync(path.join(template, f), path.join(pkg, f), { recursive: true });
}
// The package's README is for users (pkg-template/README.md); the repository's is for contributors.
fs.copyFileSync(path.join(root, 'LICENSE'), path.join(pkg, 'LICENSE'));

// One set of declarations, written once per entry with the default export that entry really has
// (the TypeScript handbook's layout for packages with both CommonJS and ES module entries).
const types = fs.readFileSync(path.join(template, 'index.d.ts'), 'utf8');
fs.rmSync(path.join(pkg, 'index.d.ts'));
const initDecl =
  '\n/** Browsers and bundlers: loads the wasm module once before decoding (retried after a failure). In Node it is already loaded. */\nexport declare function init(input?: InitInput): Promise<void>;\n';
const nodeOnly = fs.readFileSync(path.join(template, 'node-only.d.ts'), 'utf8');
fs.rmSync(path.join(pkg, 'node-only.d.ts'));
fs.writeFileSync(path.join(pkg, 'node.d.cts'), types + initDecl + nodeOnly);
fs.writeFileSync(path.join(pkg, 'node.d.mts'), `${types + initDecl + nodeOnly}export default init;\n`);
fs.writeFileSync(path.join(pkg, 'web.d.mts'), `${types + initDecl}export default init;\n`);
// the Arrow entry's declarations, each importing the result types of the entry beside it
const arrowTypes = fs.readFileSync(path.join(template, 'arrow.d.ts'), 'utf8');
fs.writeFileSync(path.join(pkg, 'arrow.d.cts'), arrowTypes.replace('__MAIN_ENTRY__', './node.cjs'));
fs.writeFileSync(path.join(pkg, 'arrow.d.mts'), arrowTypes.replace('__MAIN_ENTRY__', './web.mjs'));
// and at the root for resolvers that ignore "exports" (TypeScript's node10): the CommonJS flavour
fs.writeFileSync(path.join(pkg, 'arrow.d.ts'), arrowTypes.replace('__MAIN_ENTRY__', './node.cjs'));
// the scan worker's: one text for each resolution (scan-worker.d.ts for node10)
for (const ext of ['d.cts', 'd.mts']) fs.copyFileSync(path.join(template, 'scan-worker.d.ts'), path.join(pkg, `scan-worker.${ext}`));
// The Node entries load one CommonJS bundle of the JS layer (decoder API and live client), made by
// esbuild from the same ES modules the browser entry imports as they are.
run(path.join(root, 'node_modules/.bin/esbuild'), [
  path.join(template, 'lib-node.mjs'),
  '--bundle',
  '--platform=node',
  '--format=cjs',
  '--target=node20',
  '--external:ws',
  '--external:../vendor/*',
  '--log-level=warning',
  `--outfile=${path.join(pkg, 'lib.cjs')}`,
]);
// the value layer's third-party decoders, loaded when a format is first met
await buildVendor(path.join(pkg, 'vendor'));
// what only lib.cjs needs: not shipped as modules
fs.rmSync(path.join(pkg, 'lib-node.mjs'));
fs.rmSync(path.join(pkg, 'vendor-node.cjs'));
fs.rmSync(path.join(pkg, 'optional-ws.mjs'));
fs.rmSync(path.join(pkg, 'client', 'transport-node.mjs'));
fs.rmSync(path.join(pkg, 'client', 'decode-pool-node.mjs'));
fs.rmSync(path.join(pkg, 'scan', 'pool-node.mjs'));
fs.rmSync(path.join(pkg, 'relay'), { recursive: true });

// Package metadata follows the crate's version; one small sample ships for the CLI's default.
const version = /^version\s*=\s*"([^"]+)"/m.exec(fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8'))[1];
const manifest = JSON.parse(fs.readFileSync(path.join(template, 'package.json'), 'utf8'));
manifest.version = version;
fs.writeFileSync(path.join(pkg, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
fs.mkdirSync(path.join(pkg, 'samples'));
const shipped = ['kpb_v12_mixed_magic.bin', 'kpb_v12_mixed_magic.json'];
for (const f of shipped) {
  fs.copyFileSync(path.join(root, 'samples', f), path.join(pkg, 'samples', f));
}
// the samples the inspection page lists: those shipped, so that the page asks for no missing file
const listed = JSON.parse(fs.readFileSync(path.join(root, 'samples', 'index.json'), 'utf8')).filter((s) => shipped.includes(s.file));
fs.writeFileSync(path.join(pkg, 'samples', 'index.json'), `${JSON.stringify(listed, null, 2)}\n`);
// The inspection page, served by `kafka-fetch-decoder ui`, in its folders (not its README)
fs.cpSync(path.join(root, 'www'), path.join(pkg, 'www'), {
  recursive: true,
  filter: (from) => fs.statSync(from).isDirectory() || /\.(html|js|css)$/.test(from),
});
console.log(`${path.relative(root, pkg)}/ built: ${fs.statSync(wasmFile).size} bytes of wasm`);
