// Every ../shared/corpus capture through the public JS API, compared with its ground truth.
import test from 'node:test';
import assert from 'node:assert/strict';
import { pkg, corpusDir, corpusNames, loadCapture, pairs, b64 } from './helpers.mjs';

const { decodeFetchResponse } = pkg;

function checkPartition(where, got, want, { committed, bigint }) {
  assert.ok(got, `${where}: partition missing`);
  const n = bigint ? BigInt : Number;
  for (const [k, g] of [['error_code', 'errorCode'], ['high_watermark', 'highWatermark'], ['last_stable_offset', 'lastStableOffset'], ['log_start_offset', 'logStartOffset']]) {
    if (want[k] != null) assert.equal(got[g], k === 'error_code' ? want[k] : n(want[k]), `${where}: ${g}`);
  }
  if (want.aborted_transactions?.length) {
    assert.deepEqual(got.abortedTransactions, want.aborted_transactions.map((a) => ({ producerId: n(a.producer_id), firstOffset: n(a.first_offset) })), where);
  }
  if (want.current_leader) {
    assert.deepEqual(got.currentLeader, { leaderId: want.current_leader.leader_id, leaderEpoch: want.current_leader.leader_epoch }, where);
  }
  assert.equal(got.partial, Boolean(want.truncated_tail_bytes), `${where}: partial`);
  const records = want.records.filter((r) => !committed || (!r.aborted && !r.control));
  assert.equal(got.records.length, records.length, `${where}: record count`);
  records.forEach((w, i) => {
    const r = got.records[i];
    const at = `${where} record ${i}`;
    assert.equal(r.offset, n(w.offset), `${at}: offset`);
    assert.equal(b64(r.key), w.key_b64, `${at}: key`);
    assert.equal(r.isControl, Boolean(w.control), `${at}: control`);
    if (w.control) {
      assert.equal(r.controlType, w.control_type, `${at}: control type`);
    } else {
      assert.equal(b64(r.value), w.value_b64, `${at}: value`);
      assert.equal(r.timestamp, n(w.timestamp), `${at}: timestamp`);
      assert.deepEqual(r.headers.map((h) => [h.key, b64(h.value)]), w.headers.map((h) => [h.key, h.value_b64]), `${at}: headers`);
    }
    if (w.leader_epoch != null) assert.equal(r.leaderEpoch, w.leader_epoch, `${at}: leader epoch`);
    if (w.producer_id != null) assert.equal(r.batch.producerId, n(w.producer_id), `${at}: producer id`);
    if (w.timestamp_type) assert.equal(r.batch.timestampType, w.timestamp_type, `${at}: timestamp type`);
    assert.equal(r.batch.crcValid, w.batch_crc_valid !== false, `${at}: crcValid`);
  });
  if (got.records.length && !committed) {
    const last = got.records.at(-1).batch;
    assert.equal(got.nextOffset, last.lastOffset + (bigint ? 1n : 1), `${where}: nextOffset`);
  }
}

const names = corpusNames();

test('the corpus is all there', () => assert.equal(names.length, 77));

for (const name of names) {
  test(name, () => {
    const { frame, meta } = loadCapture(corpusDir, name);
    const hasAborted = meta.expected.topics.some((t) => t.partitions.some((p) => p.aborted_transactions?.length));
    const runs = [{ committed: false, bigint: false }, { committed: false, bigint: true }];
    if (hasAborted) runs.push({ committed: true, bigint: false });
    for (const run of runs) {
      const res = decodeFetchResponse(frame, {
        apiVersion: meta.api_version,
        crc: 'report',
        int64: run.bigint ? 'bigint' : 'number',
        includeControlRecords: !run.committed,
        isolationLevel: run.committed ? 'read_committed' : 'read_uncommitted',
      });
      for (const { where, got, want } of pairs(res, meta)) checkPartition(`${name} ${where}`, got, want, run);
    }
  });
}
