// CSV as the CLI writes it (--format csv) and the page exports it (decoder/record-json.mjs): cells a
// spreadsheet would run as a formula are made text, as OWASP advises, unless asked otherwise, and
// the base64: marker of bytes that are not text cannot be mistaken for a text. (The CLI on a topic:
// tests/live/value-bombs.test.mjs.)
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { root } from './helpers.mjs';

const { recordOutput } = createRequire(import.meta.url)(path.join(root, 'pkg', 'lib.cjs'));

describe('CSV cells', () => {
  const batch = { compression: 'none' };
  const row = (value, options = {}) =>
    recordOutput.csvRow(
      options.topic ?? 't',
      0,
      {
        offset: 1n,
        timestamp: -1n,
        key: null,
        value: value === null ? null : typeof value === 'string' ? Buffer.from(value) : value,
        headers: [],
        batch,
        leaderEpoch: -1,
      },
      options.encoding ?? 'utf8',
      false,
      options.keepFormulas,
    );
  const valueCell = (line) => line.split(',')[5];

  test("cells a spreadsheet would run as a formula get a leading ' (and one that starts with ' too); numbers stay numbers", () => {
    for (const text of ['=HYPERLINK("http://x","y")', "=cmd|' /C calc'!A0", '@SUM(1)', '+1+1', '-2+3', '\tx', '\rx', "'quoted"]) {
      const cell = valueCell(row(text));
      assert.ok(cell.startsWith("'") || cell.startsWith('"\''), `${JSON.stringify(text)} -> ${cell}`);
    }
    assert.equal(row('=1+1', { topic: '-t' }).split(',')[0], "'-t", 'every column');
    assert.equal(row('x'), 't,0,1,-1,,x,[],none,-1', 'numbers, -1 included, as they are');
    assert.equal(valueCell(row('=1+1', { keepFormulas: true })), '=1+1', 'the option keeps them');
  });

  test('a cell that starts with base64: is always the base64 of its bytes, under --encoding utf8', () => {
    assert.equal(valueCell(row(Buffer.from([0xff, 0xfe]))), 'base64://4=');
    assert.equal(valueCell(row('base64:SGk=')), `base64:${Buffer.from('base64:SGk=').toString('base64')}`, 'a text that looks like the marker');
    assert.equal(valueCell(row('plain text')), 'plain text');
  });
});
