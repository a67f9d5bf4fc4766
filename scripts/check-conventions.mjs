// Checks two habits of the project that review alone lets slip (CONTRIBUTING.md):
//   - commit subjects: at most 72 characters, then a blank line before the body, for every commit
//     after SINCE (the commits before it predate the rule);
//   - file size: no JS file of the package (pkg-template/) or the page (www/) over 600 lines;
//   - the READMEs short enough to read: the contributors' at most 20 KiB (figures belong in the
//     benchmark document, details beside what they describe).
//     node scripts/check-conventions.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsFiles } from './js-files.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// the last commit made before the rule
const SINCE = '3dc46bb';
const MAX_SUBJECT = 72;
const MAX_LINES = 600;
const problems = [];

let log = null;
try {
  log = execFileSync('git', ['log', '--format=%h%x00%B%x01', `${SINCE}..HEAD`], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
} catch {
  console.log('check-conventions: no git history here; commit subjects not checked');
}
for (const entry of (log ?? '')
  .split('\x01')
  .map((e) => e.replace(/^\n/, ''))
  .filter(Boolean)) {
  const [hash, message] = entry.split('\x00');
  const [subject, second] = message.split('\n');
  if (subject.length > MAX_SUBJECT) problems.push(`commit ${hash}: subject of ${subject.length} characters (at most ${MAX_SUBJECT}): ${subject}`);
  if (second !== undefined && second.trim() !== '') problems.push(`commit ${hash}: no blank line after the subject`);
}

for (const file of ['pkg-template', 'www'].flatMap((d) => jsFiles(path.join(root, d)))) {
  const lines = fs.readFileSync(file, 'utf8').split('\n').length - 1;
  if (lines > MAX_LINES) problems.push(`${path.relative(root, file)}: ${lines} lines (at most ${MAX_LINES}: split it along its ideas)`);
}

// README -> its most bytes
const README_BYTES = { 'README.md': 20 * 1024 };
for (const [file, most] of Object.entries(README_BYTES)) {
  const size = fs.statSync(path.join(root, file)).size;
  if (size > most) problems.push(`${file}: ${size} bytes (at most ${most}: move details into the documents it links to)`);
}

if (problems.length) {
  for (const p of problems) console.error(`check-conventions: ${p}`);
  process.exit(1);
}
console.log('check-conventions: commit subjects, file sizes and README sizes as CONTRIBUTING.md asks');
