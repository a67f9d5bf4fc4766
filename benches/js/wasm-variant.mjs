// A variant of the bench package that differs from pkg-bench/ in its .wasm only: the crate built
// the way scripts/build.mjs builds it (cargo --release --lib --features bench, wasm-bindgen
// --target nodejs with a reset function, wasm-opt -O1), with extra cargo features and RUSTFLAGS,
// in a cargo target folder of its own (so the main build's cache stays valid). The generated JS glue must be
// identical to pkg-bench/'s, so that two variants differ in their wasm alone. Used by
// simd-ab.mjs and zstd-ab.mjs; the variants sit under the repository so that the packages' `ws`
// resolves from its node_modules.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { REPO_ROOT } from './frames.mjs'

const CRATE = 'kafka_fetch_decoder'

/** pkg-bench/, checked to be a bench build. */
export function benchPackage() {
  const pkgBench = resolve(REPO_ROOT, 'pkg-bench')
  if (!existsSync(join(pkgBench, `${CRATE}.js`)) || !readFileSync(join(pkgBench, `${CRATE}.js`), 'utf8').includes('allocationStats')) {
    throw new Error('pkg-bench/ is missing or not a bench build: node scripts/build.mjs --bench')
  }
  return pkgBench
}

/**
 * Builds the variant into `dir` (a copy of pkg-bench/ with its .wasm replaced). `features`: cargo
 * features besides `bench`; `simd`: build the whole crate with simd128; `targetDir`: cargo's.
 * Returns the .wasm's size and its count of simd128 instructions.
 */
export function buildVariant(dir, { features = [], simd = false, targetDir }) {
  const run = (cmd, argv, env = {}) => execFileSync(cmd, argv, { stdio: 'inherit', cwd: REPO_ROOT, env: { ...process.env, ...env } })
  const pkgBench = benchPackage()
  run('cargo', ['build', '--release', '--lib', '--target', 'wasm32-unknown-unknown', '--features', ['bench', ...features].join(',')],
    { CARGO_TARGET_DIR: targetDir, RUSTFLAGS: simd ? '-C target-feature=+simd128' : '' })
  const built = join(targetDir, 'wasm32-unknown-unknown/release', `${CRATE}.wasm`)
  const tmp = mkdtempSync(join(REPO_ROOT, 'target', '.bindgen-'))
  try {
    // the flags of scripts/build.mjs (the glue check below fails on any other)
    run('wasm-bindgen', ['--target', 'nodejs', '--experimental-reset-state-function', '--out-dir', tmp, '--out-name', CRATE, built])
    const wasmFile = join(tmp, `${CRATE}_bg.wasm`)
    run(join(REPO_ROOT, 'node_modules/.bin/wasm-opt'), ['-O1', '--enable-reference-types', '--enable-bulk-memory',
      '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-mutable-globals', '--enable-multivalue',
      '--enable-simd', wasmFile, '-o', wasmFile])
    const glue = readFileSync(join(tmp, `${CRATE}.js`), 'utf8')
    if (glue !== readFileSync(join(pkgBench, `${CRATE}.js`), 'utf8')) {
      throw new Error(`the variant ${dir} generated different JS glue than pkg-bench/ (rebuild pkg-bench first)`)
    }
    rmSync(dir, { recursive: true, force: true })
    cpSync(pkgBench, dir, { recursive: true })
    cpSync(wasmFile, join(dir, `${CRATE}_bg.wasm`))
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  const wasm = join(dir, `${CRATE}_bg.wasm`)
  const v128 = execFileSync(join(REPO_ROOT, 'node_modules/.bin/wasm-dis'), [wasm], { maxBuffer: 1 << 30 })
    .toString().match(/\b(v128|[iuf](8x16|16x8|32x4|64x2))\./g)?.length ?? 0
  return { bytes: statSync(wasm).size, v128 }
}
