// Builds the two librdkafka bindings for Node, the live bench's native peers, from their npm
// tarballs, with nothing downloaded from outside the package registries (npm, Debian):
//
//   node benches/native-js/build.mjs [--force]      (npm run prebench runs it)
//
// Both are published to install by fetching a prebuilt binary from GitHub (Confluent's) or by
// building with node-gyp, which fetches Node's headers from nodejs.org (node-rdkafka). Here:
// `npm ci --ignore-scripts`, then each is built by node-gyp with --nodedir at the local Node's own
// headers (<prefix>/include/node, Debian's nodejs-dev or the Node install):
// - @confluentinc/kafka-javascript: CKJS_LINKING=dynamic BUILD_LIBRDKAFKA=0, linked against
//   Debian's librdkafka-dev (as Confluent's own perf CI does); if that does not compile (Debian
//   12's librdkafka is older than the binding's C++ needs), CKJS_LINKING=dynamic with the
//   librdkafka sources in its tarball, configured plainly (system OpenSSL, zlib, zstd; no
//   --install-deps, which downloads). The status says which.
// - node-rdkafka: its own build (the librdkafka sources in its tarball, plain ./configure).
// Each outcome goes to build-status.json ({ name: { ok, how, reason, seconds } }); live.mjs
// prints a row that could not build with its reason. A build already made is kept (--force
// rebuilds). CPU-heavy: several minutes on 2 cores.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const STATUS = join(HERE, 'build-status.json')
const force = process.argv.includes('--force')

/** node-gyp as npm ships it, and the local Node's headers. */
function toolchain() {
  const npmRoot = execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim()
  const nodeGyp = join(npmRoot, 'npm/node_modules/node-gyp/bin/node-gyp.js')
  if (!existsSync(nodeGyp)) throw new Error(`node-gyp not found at ${nodeGyp}`)
  const prefix = dirname(dirname(process.execPath))
  if (!existsSync(join(prefix, 'include/node/node.h'))) throw new Error(`no Node headers at ${prefix}/include/node (Debian: apt-get install nodejs-dev or libnode-dev)`)
  return { nodeGyp, nodedir: prefix }
}

function run(cmd, argv, cwd, env = {}) {
  try {
    execFileSync(cmd, argv, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 })
  } catch (e) {
    const out = `${e.stdout ?? ''}${e.stderr ?? ''}`.split('\n').filter((l) => /error|Error|fatal|not found|No such/.test(l))
    throw new Error(out.slice(0, 4).join(' | ') || e.message)
  }
}

/** The librdkafka version a built binding reports, or its load error. */
function probe(name) {
  const code = `const m = require(${JSON.stringify(name)}); console.log(m.librdkafkaVersion ?? m.features?.join?.(',') ?? '?')`
  return execFileSync(process.execPath, ['-e', code], { cwd: HERE, encoding: 'utf8' }).trim()
}

function build(name, attempts, tc) {
  const dir = join(HERE, 'node_modules', name)
  const t0 = Date.now()
  const reasons = []
  for (const { how, env } of attempts) {
    try {
      const gyp = (verb) => run(process.execPath, [tc.nodeGyp, verb, `--nodedir=${tc.nodedir}`, `--jobs=${process.env.JOBS ?? 2}`], dir, env)
      try {
        gyp('rebuild')
      } catch {
        // In a fresh tree, make with two jobs looks for librdkafka's config.h before the action
        // that runs its ./configure has written it ("No rule to make target ... config.h"); once
        // configured, the build goes through.
        gyp('build')
      }
      return { ok: true, how, librdkafka: probe(name), reasons, seconds: Math.round((Date.now() - t0) / 1000) }
    } catch (e) {
      reasons.push(`${how}: ${e.message}`)
    }
  }
  return { ok: false, reason: reasons.join('; '), seconds: Math.round((Date.now() - t0) / 1000) }
}

const TARGETS = {
  '@confluentinc/kafka-javascript': [
    { how: "against Debian's librdkafka-dev", env: { CKJS_LINKING: 'dynamic', BUILD_LIBRDKAFKA: '0' } },
    { how: 'its bundled librdkafka sources, plain configure', env: { CKJS_LINKING: 'dynamic', BUILD_LIBRDKAFKA: '1' } },
  ],
  'node-rdkafka': [{ how: 'its bundled librdkafka sources, plain configure', env: {} }],
}

/** Debian's librdkafka-dev, for Confluent's first attempt (as scripts/setup.sh installs kcat). */
function debianLibrdkafka() {
  if (existsSync('/usr/include/librdkafka/rdkafka.h')) return
  try {
    run('apt-get', ['install', '-y', '-qq', 'librdkafka-dev'], HERE, { DEBIAN_FRONTEND: 'noninteractive' })
  } catch (e) {
    console.log(`librdkafka-dev not installed (${e.message}); Confluent's binding then builds from its own sources`)
  }
}

const previous = existsSync(STATUS) && !force ? JSON.parse(readFileSync(STATUS, 'utf8')) : {}
const status = {}
let tc
try {
  if (!existsSync(join(HERE, 'node_modules')) || force) run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], HERE)
  tc = toolchain()
  debianLibrdkafka()
} catch (e) {
  for (const name of Object.keys(TARGETS)) status[name] = { ok: false, reason: e.message }
}
for (const name of Object.keys(TARGETS)) {
  if (status[name]) continue
  const version = JSON.parse(readFileSync(join(HERE, 'node_modules', name, 'package.json'), 'utf8')).version
  if (previous[name]?.ok && previous[name].version === version) {
    try {
      probe(name)
      status[name] = previous[name]
      continue
    } catch {}
  }
  status[name] = { version, ...build(name, TARGETS[name], tc) }
  console.log(`${name} ${version}: ${status[name].ok ? `built (${status[name].how}, librdkafka ${status[name].librdkafka})` : `not built: ${status[name].reason}`} in ${status[name].seconds} s`)
}
writeFileSync(STATUS, `${JSON.stringify(status, null, 2)}\n`)
