// KafkaClient.waitForLag: the helper of tests that write records and wait for the consumer group
// under test to read them. It describes the group (its committed offsets and end offsets) every
// `intervalMs` until the group's lag is at most `maxLag`, and resolves with that description; after
// `timeoutMs` it rejects with TIMEOUT, saying the lag it saw last.

import { anySignal, checkSignal, reasonOf, sleep } from './abort.mjs';
import { KafkaClientError } from './errors.mjs';

/**
 * The lag that counts: the sum over the group's partitions (and every partition of `topics`). A
 * partition without a committed offset lags by all its records (end - earliest); a group that has
 * committed nothing, with no `topics` named, has no lag to measure yet (null).
 */
async function lagOf(client, group, topics, signal) {
  const uncommitted = group.partitions.filter((p) => p.committedOffset === null && p.endOffset !== null);
  let lag = group.partitions.reduce((sum, p) => sum + (p.lag ?? 0), 0);
  for (const topic of new Set(uncommitted.map((p) => p.topic))) {
    const rows = uncommitted.filter((p) => p.topic === topic);
    const earliest = await client.listOffsets(topic, { partitions: rows.map((p) => p.partition), at: 'earliest', signal });
    for (const p of rows) lag += p.endOffset - earliest.get(p.partition).offset;
  }
  const measured = topics.length > 0 || group.partitions.some((p) => p.committedOffset !== null);
  return measured ? lag : null;
}

/**
 * `options`: group (its id), maxLag (default 0), topics (count every partition of these, committed
 * or not: name the topics the group reads, so that a group that has not committed yet is not
 * taken as caught up), timeoutMs (30000), intervalMs (500), signal. Resolves with describeGroup's
 * answer and its `lag`.
 */
export async function waitForLag(client, options) {
  if (options === null || typeof options !== 'object')
    throw new KafkaClientError('INVALID_ARGUMENT', 'waitForLag takes { group, maxLag, topics, timeoutMs, ... }');
  const { group, maxLag = 0, topics = [], timeoutMs = 30_000, intervalMs = 500, signal } = options;
  if (typeof group !== 'string' || group === '') throw new KafkaClientError('INVALID_ARGUMENT', 'waitForLag: group must be a group id (a string)');
  if (!Number.isInteger(maxLag) || maxLag < 0) throw new KafkaClientError('INVALID_ARGUMENT', `waitForLag: maxLag must be an integer >= 0, got ${maxLag}`);
  if (!Array.isArray(topics) || topics.some((t) => typeof t !== 'string'))
    throw new KafkaClientError('INVALID_ARGUMENT', 'waitForLag: topics must be an array of topic names');
  for (const [name, v] of [
    ['timeoutMs', timeoutMs],
    ['intervalMs', intervalMs],
  ]) {
    if (!Number.isFinite(v) || v <= 0) throw new KafkaClientError('INVALID_ARGUMENT', `waitForLag: ${name} must be a positive number of ms, got ${v}`);
  }
  const given = checkSignal(signal, 'waitForLag');
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const { signal: both, dispose } = anySignal(given, timeout.signal);
  let last = null;
  try {
    for (;;) {
      const described = await client.describeGroup(group, { topics, lagTime: false, signal: both });
      last = await lagOf(client, described, topics, both);
      if (last !== null && last <= maxLag) return { ...described, lag: last };
      await sleep(intervalMs, both);
    }
  } catch (e) {
    if (!timeout.signal.aborted || given?.aborted) throw given?.aborted ? reasonOf(given) : e;
  } finally {
    clearTimeout(timer);
    dispose();
  }
  const seen = last === null ? 'no committed offset seen' : `its lag was ${last} when last read`;
  throw new KafkaClientError('TIMEOUT', `waitForLag: group ${group} did not reach a lag of at most ${maxLag} within ${timeoutMs} ms (${seen})`);
}
