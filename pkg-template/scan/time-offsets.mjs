// The first offset of a partition stamped at or after a time, as a plan needs it for --from and
// --until times: the broker's answer to ListOffsets (its time index), checked against the record
// there; when the check fails (a broker whose index does not follow the records' CreateTime, or
// that has none), found by a binary search over Fetches of the records' own timestamps. The search
// takes timestamps to grow with offsets, as a time index does.

/**
 * The first record at or after `offset` (skipping control records and offsets without records),
 * as { offset, timestamp } BigInts, or null when there is none before `end`.
 */
async function firstRecordFrom(client, topic, partition, offset, end, q) {
  for (let at = offset; at < end;) {
    const answers = await client.fetch(topic, [{ partition, offset: at, maxBytes: 1 }], {
      maxWaitMs: 1,
      isolationLevel: q.isolationLevel,
      decode: { crc: 'skip', int64: 'bigint' },
      signal: q.signal,
    });
    const p = answers[0]?.response.topics[0]?.partitions.find((x) => x.partition === partition);
    if (!p || p.errorCode !== 0) return null;
    const first = p.records.length ? p.records[0] : null;
    if (first) return { offset: BigInt(first.offset), timestamp: BigInt(first.timestamp) };
    // only control records or nothing: on from where the answer ends
    const next = p.nextOffset === null ? null : BigInt(p.nextOffset);
    if (next === null || next <= at) return null;
    at = next;
  }
  return null;
}

/**
 * The first offset in [low, end) whose record is stamped at or after `time` (ms), else `end`.
 * `answer`: the broker's ListOffsets answer (an offset, or null for none found).
 */
export async function timeOffset(
  client,
  topic,
  partition,
  /** @type {{ low: bigint, end: bigint, time: number | bigint, answer: bigint | null }} */ { low, end, time, answer },
  q,
) {
  const t = BigInt(time);
  if (low >= end) return end;
  if (answer !== null && answer >= low && answer < end) {
    const r = await firstRecordFrom(client, topic, partition, answer, end, q);
    if (r && r.timestamp >= t && (answer === low || r.offset === answer)) {
      const before = answer > low ? await firstRecordFrom(client, topic, partition, answer - 1n, end, q) : null;
      if (!before || before.offset >= answer || before.timestamp < t) return answer;
    }
  } else if (answer === null) {
    // none at or after the time: true when the last record is stamped before it
    const last = await firstRecordFrom(client, topic, partition, end - 1n, end, q);
    if (last && last.timestamp < t) return end;
  }
  let lo = low;
  let hi = end;
  let found = end;
  while (lo < hi) {
    const mid = lo + (hi - lo) / 2n;
    const r = await firstRecordFrom(client, topic, partition, mid, hi, q);
    if (r === null) {
      hi = mid;
    } else if (r.timestamp >= t) {
      found = r.offset;
      hi = mid;
    } else {
      lo = r.offset + 1n;
    }
  }
  return found;
}
