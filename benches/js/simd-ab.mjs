// A/B of the wasm build with and without simd128 (`-C target-feature=+simd128`), in one process.
//
//   node scripts/build.mjs --bench                 # pkg-bench/, the plain build
//   node benches/js/simd-ab.mjs --build            # target/simd-ab/{plain,simd}
//   node --expose-gc benches/js/simd-ab.mjs [--frames DIR] [--only none,lz4] [--rounds N] [--quick]
//
// --build copies pkg-bench/ to target/simd-ab/plain, and makes target/simd-ab/simd: the same
// package with only its .wasm replaced by one built the way scripts/build.mjs builds it (cargo
// --release --lib --features bench, wasm-bindgen --target nodejs, wasm-opt -O1) but with
// RUSTFLAGS="-C target-feature=+simd128", in a cargo target folder of its own
// (target/simd-ab/cargo, so the main build's cache stays valid), and wasm-opt told --enable-simd.
// It checks that the generated JS glue is identical, so the two packages differ in their wasm only.
// (Both folders sit under the repository so that the packages' `ws` resolves from its node_modules.)
//
// The timing is ab.mjs's: both packages interleaved in one process, per shared bench frame.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { REPO_ROOT } from './frames.mjs'
import { compareBuilds } from './ab.mjs'

const OUT = resolve(REPO_ROOT, 'target/simd-ab')
const CRATE = 'kafka_fetch_decoder'
const args = process.argv.slice(2)
const val = (name) => {
  const i = args.indexOf(name)
  return i < 0 ? undefined : args[i + 1]
}

function build() {
  const run = (cmd, argv, env = {}) => execFileSync(cmd, argv, { stdio: 'inherit', cwd: REPO_ROOT, env: { ...process.env, ...env } })
  const pkgBench = resolve(REPO_ROOT, 'pkg-bench')
  if (!existsSync(join(pkgBench, `${CRATE}.js`)) || !readFileSync(join(pkgBench, `${CRATE}.js`), 'utf8').includes('allocationStats')) {
    throw new Error('pkg-bench/ is missing or not a bench build: node scripts/build.mjs --bench')
  }
  for (const v of ['plain', 'simd']) rmSync(join(OUT, v), { recursive: true, force: true })
  cpSync(pkgBench, join(OUT, 'plain'), { recursive: true })

  const targetDir = join(OUT, 'cargo')
  run('cargo', ['build', '--release', '--lib', '--target', 'wasm32-unknown-unknown', '--features', 'bench'],
    { CARGO_TARGET_DIR: targetDir, RUSTFLAGS: '-C target-feature=+simd128' })
  const built = join(targetDir, 'wasm32-unknown-unknown/release', `${CRATE}.wasm`)
  const tmp = mkdtempSync(join(OUT, '.bindgen-'))
  run('wasm-bindgen', ['--target', 'nodejs', '--out-dir', tmp, '--out-name', CRATE, built])
  const wasmFile = join(tmp, `${CRATE}_bg.wasm`)
  run(join(REPO_ROOT, 'node_modules/.bin/wasm-opt'), ['-O1', '--enable-reference-types', '--enable-bulk-memory',
    '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-mutable-globals', '--enable-multivalue',
    '--enable-simd', wasmFile, '-o', wasmFile])
  const glue = readFileSync(join(tmp, `${CRATE}.js`), 'utf8')
  if (glue !== readFileSync(join(OUT, 'plain', `${CRATE}.js`), 'utf8')) {
    throw new Error('the simd build generated different JS glue than pkg-bench/ (rebuild pkg-bench first)')
  }
  cpSync(join(OUT, 'plain'), join(OUT, 'simd'), { recursive: true })
  cpSync(wasmFile, join(OUT, 'simd', `${CRATE}_bg.wasm`))
  rmSync(tmp, { recursive: true })
  const v128 = execFileSync(join(REPO_ROOT, 'node_modules/.bin/wasm-dis'), [join(OUT, 'simd', `${CRATE}_bg.wasm`)], { maxBuffer: 1 << 30 })
    .toString().match(/\b(v128|[iuf](8x16|16x8|32x4|64x2))\./g)?.length ?? 0
  for (const v of ['plain', 'simd']) {
    console.log(`${v}: ${statSync(join(OUT, v, `${CRATE}_bg.wasm`)).size} bytes of wasm`)
  }
  console.log(`simd: ${v128} simd128 instructions`)
}

async function time() {
  await compareBuilds({ plain: join(OUT, 'plain'), simd: join(OUT, 'simd') }, args)
}

if (args.includes('--build')) build()
else await time()
