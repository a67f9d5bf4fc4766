// Compares decodeFetchResponse's output for a corpus capture with its producer-side ground truth
// (conventions: ../shared/corpus/README.md). Plain JS with no Node APIs, so the same check runs in
// Node (corpus.test.mjs) and in Chromium (tests/browser/corpus.test.mjs).

function base64(bytes) {
  if (bytes === null) return null;
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

const same = (a, b) =>
  JSON.stringify(a, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)) === JSON.stringify(b, (_, v) => (typeof v === 'bigint' ? `${v}n` : v));

function checkPartition(problems, where, got, want, { committed, bigint }) {
  if (!got) return problems.push(`${where}: partition missing`);
  const n = (v) => (v == null ? v : bigint ? BigInt(v) : Number(v));
  const field = (label, g, w) => {
    if (!same(g, w)) problems.push(`${where}: ${label} ${String(g)} != ${String(w)}`);
  };
  field('errorCode', got.errorCode, want.error_code);
  for (const [k, g] of [
    ['high_watermark', 'highWatermark'],
    ['last_stable_offset', 'lastStableOffset'],
    ['log_start_offset', 'logStartOffset'],
  ]) {
    if (want[k] != null) field(g, got[g], n(want[k]));
  }
  if (want.aborted_transactions?.length) {
    field(
      'abortedTransactions',
      got.abortedTransactions,
      want.aborted_transactions.map((a) => ({ producerId: n(a.producer_id), firstOffset: n(a.first_offset) })),
    );
  }
  if (want.current_leader) {
    field('currentLeader', got.currentLeader, { leaderId: want.current_leader.leader_id, leaderEpoch: want.current_leader.leader_epoch });
  }
  field('partial', got.partial, Boolean(want.truncated_tail_bytes));
  const records = want.records.filter((r) => !committed || (!r.aborted && !r.control));
  field('record count', got.records.length, records.length);
  for (let i = 0; i < Math.min(records.length, got.records.length); i++) {
    const w = records[i];
    const r = got.records[i];
    const mine = { offset: r.offset, key: base64(r.key), control: r.isControl };
    const theirs = { offset: n(w.offset), key: w.key_b64, control: Boolean(w.control) };
    if (w.control) {
      mine.type = r.controlType;
      theirs.type = w.control_type;
    } else {
      Object.assign(mine, { value: base64(r.value), timestamp: r.timestamp, headers: r.headers.map((h) => [h.key, base64(h.value)]) });
      Object.assign(theirs, { value: w.value_b64, timestamp: n(w.timestamp), headers: w.headers.map((h) => [h.key, h.value_b64]) });
    }
    if (w.leader_epoch != null) [mine.leaderEpoch, theirs.leaderEpoch] = [r.leaderEpoch, w.leader_epoch];
    if (w.producer_id != null) [mine.producerId, theirs.producerId] = [r.batch.producerId, n(w.producer_id)];
    if (w.timestamp_type) [mine.timestampType, theirs.timestampType] = [r.batch.timestampType, w.timestamp_type];
    [mine.crcValid, theirs.crcValid] = [r.batch.crcValid, w.batch_crc_valid !== false];
    if (!same(mine, theirs)) {
      problems.push(`${where} record ${i}: got ${JSON.stringify(mine, (_, v) => (typeof v === 'bigint' ? `${v}` : v)).slice(0, 300)}`);
      break;
    }
  }
  if (got.records.length && !committed) {
    field('nextOffset', got.nextOffset, got.records.at(-1).batch.lastOffset + (bigint ? 1n : 1));
  }
}

/** Decodes `frame` in every mode the capture calls for and returns the disagreements (empty: all agree). */
export function checkCapture(decodeFetchResponse, name, frame, meta) {
  const problems = [];
  const hasAborted = meta.expected.topics.some((t) => t.partitions.some((p) => p.aborted_transactions?.length));
  const runs = [
    { committed: false, bigint: false },
    { committed: false, bigint: true },
  ];
  if (hasAborted) runs.push({ committed: true, bigint: false });
  for (const run of runs) {
    let res;
    try {
      res = decodeFetchResponse(frame, {
        apiVersion: meta.api_version,
        crc: 'report',
        int64: run.bigint ? 'bigint' : 'number',
        includeControlRecords: !run.committed,
        isolationLevel: run.committed ? 'read_committed' : 'read_uncommitted',
      });
    } catch (e) {
      problems.push(`${name}: threw ${e.code ?? ''} ${e.message}`);
      continue;
    }
    for (const et of meta.expected.topics) {
      // a topic may appear in several entries (one per partition)
      const topics = res.topics.filter((t) => (et.topic != null && t.topic === et.topic) || (et.topic_id != null && t.topicId === et.topic_id));
      for (const ep of et.partitions) {
        const got = topics.flatMap((t) => t.partitions).find((p) => p.partition === ep.partition);
        const mode = `${run.committed ? 'committed' : 'all'}, ${run.bigint ? 'bigint' : 'number'}`;
        checkPartition(problems, `${name} [${mode}] ${et.topic ?? et.topic_id}/${ep.partition}`, got, ep, run);
      }
    }
  }
  return problems;
}
