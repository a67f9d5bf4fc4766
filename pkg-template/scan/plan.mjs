// A scan's plan: topics, partitions and positions turned into offset ranges [from, to) per
// partition, cut into ranges of at most `rangeRecords` offsets, the way Spark, Flink and Trino split
// Kafka reads. Each range is read on its own (any worker, process or machine), from its leader, with
// nothing written to the broker. The plan is plain JSON (offsets as numbers), the same for the same
// input and broker state, so that it can be written once and run in shards (shardOf).
//
// The end of a partition is the end offset a Fetch reports when the plan is made (the high
// watermark, or the last stable offset under read_committed), as `consume --until-end` reads it:
// ListOffsets' latest is not it on every broker.

import { KafkaClientError } from '../client/errors.mjs';
import { base64 } from '../decoder/bytes.mjs';
import { endPosition, startPosition } from '../client/start.mjs';
import { partitionOfKey } from './partitioner.mjs';
import { timeOffset } from './time-offsets.mjs';

export const PLAN_FORMAT = 'kafka-fetch-decoder/scan-plan';
export const DEFAULT_RANGE_RECORDS = 100_000;
// A range that cannot be read once (a broker that failed, a leader that moved mid-read) is tried
// again from where it stopped; planning looks offsets up again after a failure too.
const PLAN_ATTEMPTS = 5;

/**
 * The plan of a scan of `query`: { topics, partitions (all when omitted), from (consume's forms;
 * default 'earliest'), until ('end' (default), an offset or a time), isolationLevel, key (bytes or
 * text: only its partition is read unless keyPruning is false), keyPruning, rangeRecords, signal }.
 */
export async function planScan(client, query) {
  const q = planQuery(query);
  const ranges = [];
  for (const topic of q.topics) {
    const md = await client.metadata([topic], { signal: q.signal });
    const t = md.topics.find((x) => x.topic === topic);
    if (!t || t.errorCode !== 0) {
      throw new KafkaClientError('UNKNOWN_TOPIC', `topic ${topic}: ${t ? `${t.errorName} (${t.errorCode})` : 'not in the metadata'}`, { topic });
    }
    const count = t.partitions.length;
    const chosen = q.partitions ?? t.partitions.map((p) => p.partition);
    for (const p of chosen) {
      if (!t.partitions.some((x) => x.partition === p))
        throw new KafkaClientError('UNKNOWN_TOPIC', `topic ${topic} has no partition ${p} (it has ${count})`, { topic, partition: p });
    }
    const keyPartition = q.key !== null && q.keyPruning ? partitionOfKey(q.key, count) : null;
    const read = (p) => keyPartition === null || p === keyPartition;
    const bounds = await withAttempts(() => partitionBounds(client, topic, chosen, read, q), q.signal);
    for (const p of [...chosen].sort((a, b) => a - b)) {
      const { from, to, bound, untilTime } = bounds.get(p);
      if (!read(p)) {
        ranges.push({ topic, partition: p, from, to, bound, pruned: true });
        continue;
      }
      for (const r of cut(topic, p, from, to, bound, q.rangeRecords)) ranges.push(untilTime === null ? r : { ...r, untilTime });
    }
  }
  return {
    format: PLAN_FORMAT,
    version: 1,
    topics: q.topics,
    isolationLevel: q.isolationLevel,
    key: q.key === null ? null : { base64: base64(q.key) },
    keyPruning: q.keyPruning,
    rangeRecords: q.rangeRecords,
    ranges,
  };
}

function planQuery(query) {
  const topics = [].concat(query.topics ?? query.topic ?? []);
  if (!topics.length || topics.some((t) => typeof t !== 'string' || !t))
    throw new KafkaClientError('INVALID_ARGUMENT', 'a scan needs one or more topics (names)');
  const rangeRecords = query.rangeRecords ?? DEFAULT_RANGE_RECORDS;
  if (!Number.isSafeInteger(rangeRecords) || rangeRecords < 1)
    throw new KafkaClientError('INVALID_ARGUMENT', `rangeRecords must be a positive integer, got ${rangeRecords}`);
  const isolationLevel = query.isolationLevel ?? 'read_uncommitted';
  if (!['read_uncommitted', 'read_committed'].includes(isolationLevel))
    throw new KafkaClientError('INVALID_ARGUMENT', `isolationLevel must be 'read_uncommitted' or 'read_committed'`);
  const key = query.key === undefined || query.key === null ? null : typeof query.key === 'string' ? new TextEncoder().encode(query.key) : query.key;
  if (key !== null && !(key instanceof Uint8Array)) throw new KafkaClientError('INVALID_ARGUMENT', 'key is a string (its UTF-8 bytes) or a Uint8Array');
  return {
    topics: [...new Set(topics)],
    partitions: query.partitions ?? null,
    start: startPosition(query.from ?? 'earliest'),
    until: endPosition(query.until ?? 'end'),
    isolationLevel,
    key,
    keyPruning: query.keyPruning ?? true,
    rangeRecords,
    signal: query.signal,
  };
}

/**
 * Each partition's { from, to, bound } (offsets as BigInts; bound: what `to` is: end, offset or
 * time). Only the partitions to `read` are fetched from (a key scan reads no byte of the others).
 */
async function partitionBounds(client, topic, partitions, read, q) {
  const look = (at) => client.listOffsets(topic, { partitions, at, isolationLevel: q.isolationLevel, int64: 'bigint', signal: q.signal });
  const [earliest, latest] = [await look('earliest'), await look('latest')];
  const ends = await endOffsets(client, topic, partitions.filter(read), latest, q);
  const byTime = async (time) => {
    const found = await look({ time });
    // none found is offset -1 (some brokers answer offset 0 with timestamp -1)
    return (p) => (found.get(p).offset >= 0n && found.get(p).timestamp >= 0n ? found.get(p).offset : null);
  };
  const startAt = q.start.time !== undefined ? await byTime(q.start.time) : null;
  const untilAt = q.until?.time !== undefined ? await byTime(q.until.time) : null;
  // a time's offset, the broker's answer checked (time-offsets.mjs) where the partition is read
  const atTime = (p, answers, time, low, end) => (read(p) ? timeOffset(client, topic, p, { low, end, time, answer: answers(p) }, q) : (answers(p) ?? end));
  const out = new Map();
  for (const p of partitions) {
    const low = earliest.get(p).offset;
    const end = ends.get(p) ?? latest.get(p).offset;
    const clamp = (o) => (o < low ? low : o > end ? end : o);
    let from;
    if (q.start.at === 'earliest') from = low;
    else if (q.start.at === 'latest') from = end;
    else if (q.start.offset !== undefined) from = clamp(q.start.offset);
    else if (q.start.last !== undefined) from = clamp(end - q.start.last);
    else from = clamp(await atTime(p, startAt, q.start.time, low, end));
    let to = end;
    let bound = 'end';
    if (q.until?.offset !== undefined && q.until.offset < end) [to, bound] = [q.until.offset, 'offset'];
    if (untilAt) [to, bound] = [clamp(await atTime(p, untilAt, q.until.time, low, end)), 'time'];
    if (to < from) to = from;
    // a time also ends the ranges at their first record stamped at or after it, as consume does
    out.set(p, { from, to, bound, untilTime: q.until?.time ?? null });
  }
  return out;
}

/**
 * The end offset of each partition as a Fetch reports it: the high watermark, or the last stable
 * offset under read_committed. Asked at the ListOffsets latest offset with a small byte limit and
 * a wait of 1 ms (a broker that holds no record there answers after it; one broker answers a Fetch
 * of no wait with no partitions at all). A partition left out of the answer ends at ListOffsets'
 * latest.
 */
async function endOffsets(client, topic, partitions, latest, q) {
  if (!partitions.length) return new Map();
  const answers = await client.fetch(
    topic,
    partitions.map((p) => ({ partition: p, offset: latest.get(p).offset, maxBytes: 1 })),
    {
      maxWaitMs: 1,
      isolationLevel: q.isolationLevel,
      decode: { crc: 'skip', int64: 'bigint' },
      signal: q.signal,
    },
  );
  const ends = new Map();
  for (const { broker, response } of answers) {
    for (const t of response.topics) {
      for (const p of t.partitions) {
        if (p.errorCode !== 0) {
          throw new KafkaClientError('BROKER_ERROR', `Fetch ${topic}/${p.partition} at broker ${broker} failed while planning: error ${p.errorCode}`, {
            broker,
            topic,
            partition: p.partition,
            errorCode: p.errorCode,
          });
        }
        const lso = p.lastStableOffset === null ? -1n : BigInt(p.lastStableOffset);
        const end = q.isolationLevel === 'read_committed' && lso >= 0n ? lso : BigInt(p.highWatermark);
        // a broker's ListOffsets latest may be past what one Fetch reports for a moment: the higher
        ends.set(p.partition, end > latest.get(p.partition).offset ? end : latest.get(p.partition).offset);
      }
    }
  }
  for (const p of partitions) if (!ends.has(p)) ends.set(p, latest.get(p).offset);
  return ends;
}

async function withAttempts(fn, signal) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= PLAN_ATTEMPTS || signal?.aborted || !(e instanceof KafkaClientError) || !['BROKER_ERROR', 'CONNECTION', 'TIMEOUT'].includes(e.code))
        throw e;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
    }
  }
}

/** [from, to) cut into ranges of at most `size` offsets; an empty partition is one empty range. */
function cut(topic, partition, from, to, bound, size) {
  const ranges = [];
  const step = BigInt(size);
  let at = from;
  do {
    const end = to - at > step ? at + step : to;
    ranges.push({ topic, partition, from: at, to: end, bound: end === to ? bound : 'range' });
    at = end;
  } while (at < to);
  return ranges;
}

/** The plan as JSON text: offsets as numbers. */
export function planJson(plan) {
  return `${JSON.stringify({ ...plan, ranges: plan.ranges.map(rangeJson) }, null, 1)}\n`;
}

/** A range with its offsets as numbers (exact up to 2^53; beyond, an error rather than a wrong offset). */
export function rangeJson(range) {
  const out = {};
  for (const [k, v] of Object.entries(range)) out[k] = typeof v === 'bigint' ? safeNumber(v, k) : v;
  return out;
}

function safeNumber(v, name) {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new KafkaClientError('INVALID_ARGUMENT', `${name} ${v} is past 2^53: a plan's offsets are JSON numbers`);
  return Number(v);
}

/** A plan read back (JSON text or its object), checked: every problem is one line naming the field. */
export function readPlan(source, name = 'the plan') {
  let plan = source;
  if (typeof source === 'string') {
    try {
      plan = JSON.parse(source);
    } catch (e) {
      throw new KafkaClientError('INVALID_ARGUMENT', `${name} is not JSON (${e.message})`);
    }
  }
  const bad = (why) => new KafkaClientError('INVALID_ARGUMENT', `${name} is not a scan plan: ${why}`);
  if (plan === null || typeof plan !== 'object' || plan.format !== PLAN_FORMAT) throw bad(`its "format" is not "${PLAN_FORMAT}"`);
  if (plan.version !== 1) throw bad(`version ${plan.version} is not one this package reads (1)`);
  if (!Array.isArray(plan.topics) || !plan.topics.every((t) => typeof t === 'string' && t)) throw bad('"topics" is not a list of names');
  if (!['read_uncommitted', 'read_committed'].includes(plan.isolationLevel)) throw bad('"isolationLevel" is not read_uncommitted or read_committed');
  if (!Array.isArray(plan.ranges)) throw bad('"ranges" is not a list');
  const ranges = plan.ranges.map((r, i) => checkRange(r, `range ${i}`, bad));
  checkTiling(ranges, bad);
  return { ...plan, ranges };
}

/** A range of a plan or coverage file with its offsets as BigInts, checked. */
export function checkRange(r, where, bad) {
  const offset = (v, field) => {
    if (!Number.isSafeInteger(v) || v < 0) throw bad(`${where}: "${field}" is not an offset (a whole number from 0)`);
    return BigInt(v);
  };
  if (r === null || typeof r !== 'object') throw bad(`${where} is not an object`);
  if (typeof r.topic !== 'string' || !r.topic) throw bad(`${where}: "topic" is not a name`);
  if (!Number.isInteger(r.partition) || r.partition < 0) throw bad(`${where}: "partition" is not a partition number`);
  const out = { ...r, from: offset(r.from, 'from'), to: offset(r.to, 'to') };
  if (out.to < out.from) throw bad(`${where}: "to" ${r.to} is before "from" ${r.from}`);
  return out;
}

/** Ranges of one partition may not overlap (a plan's tile each partition's span in order). */
function checkTiling(ranges, bad) {
  const last = new Map();
  for (const r of ranges) {
    const k = `${r.topic}\u0000${r.partition}`;
    const prev = last.get(k);
    if (prev !== undefined && r.from < prev) throw bad(`${r.topic}/${r.partition}: the range from ${r.from} overlaps the one before it (to ${prev})`);
    last.set(k, r.to);
  }
}

/**
 * The share of shard `index` of `count` (0-based, as a Kubernetes Indexed Job's
 * JOB_COMPLETION_INDEX): the ranges dealt in plan order, each to the shard with the fewest offsets
 * so far (the lowest index on a tie). The same plan gives every shard the same share, every range to
 * exactly one shard; ranges pruned by key need no read and go to shard 0.
 */
export function shardOf(plan, index, count) {
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count) {
    throw new KafkaClientError('INVALID_ARGUMENT', `a shard is I/N with 0 <= I < N (0-based, as JOB_COMPLETION_INDEX), got ${index}/${count}`);
  }
  const load = new Array(count).fill(0n);
  const mine = [];
  for (const r of plan.ranges) {
    let shard = 0;
    if (!r.pruned) {
      for (let s = 1; s < count; s++) if (load[s] < load[shard]) shard = s;
      load[shard] += r.to - r.from;
    }
    if (shard === index) mine.push(r);
  }
  return { ...plan, ranges: mine, shard: { index, count } };
}
