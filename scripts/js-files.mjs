// The JS files under a folder, for the scripts that read the package's and the page's code
// (check-imports.mjs, check-conventions.mjs, page-elements.mjs).
import fs from 'node:fs';
import path from 'node:path';

/** Every .js, .mjs and .cjs file under `dir`, its subfolders named in `skip` left out. */
export function jsFiles(dir, skip = ['node_modules']) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((f) => {
    const file = path.join(dir, f.name);
    if (f.isDirectory()) return skip.includes(f.name) ? [] : jsFiles(file, skip);
    return /\.(m|c)?js$/.test(f.name) ? [file] : [];
  });
}
