// Every ../shared/corpus capture through the public JS API in Node, compared with its ground truth
// (the same check runs in Chromium: tests/browser/corpus.test.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import { pkg, corpusDir, corpusNames, loadCapture } from './helpers.mjs';
import { checkCapture } from './ground-truth.mjs';

const names = corpusNames();

test('the corpus is all there', () => assert.equal(names.length, 77));

for (const name of names) {
  test(name, () => {
    const { frame, meta } = loadCapture(corpusDir, name);
    assert.deepEqual(checkCapture(pkg.decodeFetchResponse, name, frame, meta), []);
  });
}
