// The JS gate of `npm test`: TypeScript's checker over the package's JS and its JSDoc types
// (tsconfig.check.json) and over the page's (tsconfig.www.json; its workers, tsconfig.workers.json),
// Prettier's check and ESLint (eslint.config.mjs), one line each; what they found, if they found
// anything, then exit 1. Runs after the build, whose wasm-bindgen declarations it reads.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writePageElements } from './page-elements.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);
const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, encoding: 'utf8' });

if (!fs.existsSync(path.join(root, 'target/js-check/wasm-glue.d.ts'))) {
  console.error("check-js: no target/js-check/wasm-glue.d.ts: run node scripts/build.mjs first (it keeps the wasm glue's declarations there)");
  process.exit(1);
}

let failed = false;

/**
 * TypeScript's checker with `config`, over the files under `dir`: what it found in them (a finding
 * and its continuation lines). The page's workers import the built package (pkg/), whose files are
 * checked from their sources by tsconfig.check.json; what it finds there in another program is not
 * counted twice.
 */
function typeCheck(config, dir) {
  // --listFiles: the files it read, one a line, after what it found
  const out = run(bin('tsc'), ['-p', config, '--pretty', 'false', '--listFiles']);
  const lines = out.stdout.split('\n');
  const checked = lines.filter((line) => line.startsWith(path.join(root, dir))).length;
  const findings = [];
  let ours = false;
  for (const line of lines) {
    if (!line || line.startsWith('/')) continue;
    if (!line.startsWith(' ')) ours = line.startsWith(dir);
    if (ours) findings.push(line);
  }
  const count = findings.filter((line) => / error TS\d+/.test(line)).length;
  if (count === 0 && (out.status === 0 || dir !== 'pkg-template/')) {
    console.log(`check-js: tsc (checkJs, ${config}) over ${checked} files of ${dir}: no error`);
    return;
  }
  failed = true;
  console.log(`check-js: tsc (checkJs, ${config}): ${count} errors\n${findings.join('\n')}${out.stderr}`);
}

// the page's elements by id, which `$(id)` is typed by (scripts/page-elements.mjs)
writePageElements(root);
typeCheck('tsconfig.check.json', 'pkg-template/');
typeCheck('tsconfig.www.json', 'www/');
typeCheck('tsconfig.workers.json', 'www/');

// Prettier (.prettierrc.json, .prettierignore): the JS as the formatter writes it
const format = run(bin('prettier'), [
  '--check',
  '--log-level',
  'warn',
  'pkg-template/**/*.{mjs,cjs,js}',
  'www/**/*.js',
  'scripts/**/*.{mjs,cjs,js}',
  'tests/**/*.{mjs,js}',
]);
if (format.status === 0) {
  console.log('check-js: prettier --check over pkg-template/, www/, scripts/, tests/: formatted');
} else {
  failed = true;
  console.log(`check-js: prettier --check: not formatted (npx prettier --write FILE)\n${format.stdout}${format.stderr}`);
}

const lint = run(bin('eslint'), ['--max-warnings', '0', '--format', 'json', '.']);
let results;
try {
  results = JSON.parse(lint.stdout);
} catch {
  console.log(`check-js: eslint did not run\n${lint.stdout}${lint.stderr}`);
  process.exit(1);
}
const problems = results.reduce((n, r) => n + r.errorCount + r.warningCount, 0);
if (lint.status === 0 && problems === 0) {
  console.log(`check-js: eslint over ${results.length} files (pkg-template/, www/, scripts/, tests/): no problem`);
} else {
  failed = true;
  console.log(`check-js: eslint: ${problems} problems`);
  console.log(run(bin('eslint'), ['--max-warnings', '0', '.']).stdout);
}
process.exit(failed ? 1 : 0);
