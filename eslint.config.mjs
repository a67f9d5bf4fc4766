// ESLint (npm test, through scripts/check-js.mjs): a small rule set over the package's JS, the
// page, the scripts and the tests, with the globals of the runtime each folder runs in.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['pkg/**', 'pkg-bench/**', 'target/**', 'node_modules/**', '**/node_modules/**', 'benches/**', 'fuzz/**', 'examples/**'] },
  js.configs.recommended,
  {
    rules: {
      eqeqeq: ['error', 'smart'],
      'no-new-func': 'error',
      'no-empty': ['error', { allowEmptyCatch: true }],
      // the package takes control characters out of what brokers and users send: its regexes name them
      'no-control-regex': 'off',
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  // the package's modules run in browsers, workers and Node alike: only what all of them have
  // (and Buffer, used where there is one: `typeof Buffer` first)
  { files: ['pkg-template/**/*.mjs'], languageOptions: { globals: { ...globals['shared-node-browser'], Buffer: 'readonly' } } },
  { files: ['pkg-template/scan/worker-web.mjs'], languageOptions: { globals: globals.worker } },
  // Node's own: its entries, the CLI, the relay, the Node transports and pools
  { files: ['pkg-template/**/*.cjs', 'pkg-template/**/*-node.mjs', 'pkg-template/relay/**'], languageOptions: { globals: globals.node } },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
  // the page: a folder per thread (the page's, its workers', and shared/ modules that run in any)
  { files: ['www/page/**'], languageOptions: { globals: globals.browser } },
  { files: ['www/workers/**'], languageOptions: { globals: globals.worker } },
  { files: ['www/shared/**'], languageOptions: { globals: globals['shared-node-browser'] } },
  { files: ['scripts/**', 'tests/**'], languageOptions: { globals: globals.node } },
  // tests that drive a browser hand it functions to run in the page
  { files: ['tests/browser/**', 'tests/live/**'], languageOptions: { globals: { ...globals.node, ...globals.browser } } },
];
