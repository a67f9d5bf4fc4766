// A/B of the wasm build with and without simd128 (`-C target-feature=+simd128`), in one process.
//
//   node scripts/build.mjs --bench                 # pkg-bench/, the plain build
//   node benches/js/simd-ab.mjs --build            # target/simd-ab/{plain,simd}
//   node --expose-gc benches/js/simd-ab.mjs [--frames DIR] [--only none,lz4] [--rounds N] [--quick]
//
// --build copies pkg-bench/ to target/simd-ab/plain, and makes target/simd-ab/simd: the same
// package with only its .wasm replaced by one built with RUSTFLAGS="-C target-feature=+simd128"
// (wasm-variant.mjs; its own cargo target folder, target/simd-ab/cargo).
//
// The timing is ab.mjs's: both packages interleaved in one process, per shared bench frame.
import { cpSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { REPO_ROOT } from './frames.mjs'
import { compareBuilds } from './ab.mjs'
import { benchPackage, buildVariant } from './wasm-variant.mjs'

const OUT = resolve(REPO_ROOT, 'target/simd-ab')
const args = process.argv.slice(2)

function build() {
  rmSync(join(OUT, 'plain'), { recursive: true, force: true })
  cpSync(benchPackage(), join(OUT, 'plain'), { recursive: true })
  const { bytes, v128 } = buildVariant(join(OUT, 'simd'), { simd: true, targetDir: join(OUT, 'cargo') })
  console.log(`simd: ${bytes} bytes of wasm, ${v128} simd128 instructions`)
}

async function time() {
  await compareBuilds({ plain: join(OUT, 'plain'), simd: join(OUT, 'simd') }, args)
}

if (args.includes('--build')) build()
else await time()
