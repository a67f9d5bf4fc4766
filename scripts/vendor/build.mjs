// The third-party libraries the value and column layers load when first needed, bundled at package
// build time into vendor/ of the package, each twice: NAME.cjs for Node (its own Buffer, util and
// crypto) and NAME.mjs for browsers and bundlers (the buffer package for avsc, which reads Buffers);
// and parquet-wasm, copied as published, in vendor/parquet/.
// They are not dependencies of the package: the versions are the devDependencies' of the build,
// their licenses in vendor/LICENSES.txt.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const LIBRARIES = { avsc: 'avsc', protobufjs: 'protobufjs', msgpackr: 'msgpackr', flechette: '@uwdata/flechette' };

export async function buildVendor(outDir) {
  fs.mkdirSync(outDir, { recursive: true });
  for (const name of Object.keys(LIBRARIES)) {
    const entryPoints = [path.join(here, `${name}.cjs`)];
    // identifiers kept: their stack traces stay readable
    const common = { entryPoints, bundle: true, minifyWhitespace: true, minifySyntax: true, legalComments: 'eof', logLevel: 'warning', absWorkingDir: root };
    await build({ ...common, platform: 'node', format: 'cjs', target: 'node20', outfile: path.join(outDir, `${name}.cjs`) });
    await build({
      ...common,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      outfile: path.join(outDir, `${name}.mjs`),
      alias: { util: path.join(here, 'util-browser.cjs'), crypto: path.join(here, 'crypto-browser.cjs'), buffer: 'buffer' },
    });
  }
  // parquet-wasm as it is published (a wasm-bindgen build of the parquet crate): its Node glue and its
  // browser glue around one .wasm, loaded only by Parquet output (5 MB: never on the package's load)
  const parquet = path.join(outDir, 'parquet');
  fs.mkdirSync(parquet, { recursive: true });
  const published = path.join(root, 'node_modules', 'parquet-wasm');
  fs.copyFileSync(path.join(published, 'node', 'parquet_wasm.js'), path.join(parquet, 'parquet_wasm.cjs'));
  fs.copyFileSync(path.join(published, 'esm', 'parquet_wasm.js'), path.join(parquet, 'parquet_wasm.mjs'));
  fs.copyFileSync(path.join(published, 'node', 'parquet_wasm_bg.wasm'), path.join(parquet, 'parquet_wasm_bg.wasm'));
  // the libraries and what they bundle: protobufjs needs long, the Buffer polyfill base64-js and ieee754
  const licenses = [...Object.values(LIBRARIES), 'parquet-wasm', 'long', 'buffer', 'base64-js', 'ieee754'].map((pkg) => {
    const dir = path.join(root, 'node_modules', pkg);
    const file = fs.readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
    const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return `${pkg} ${version}\n\n${fs.readFileSync(path.join(dir, file), 'utf8').trim()}\n`;
  });
  fs.writeFileSync(path.join(outDir, 'LICENSES.txt'), `The libraries bundled in this folder, and their licenses.\n\n${licenses.join('\n---\n\n')}`);
}
