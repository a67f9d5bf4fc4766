// KafkaClient.waitFor: the helper of headless and end-to-end tests. It reads a topic (a consume
// pass) until a record matches, and resolves with it; after `timeoutMs` it rejects with TIMEOUT,
// saying how many records it read. The pass ends either way: nothing is left reading.

import { anySignal, checkSignal, reasonOf } from './abort.mjs';
import { KafkaClientError } from './errors.mjs';

/**
 * `options`: topic, match(record, chunk) (a function, its answer may be a promise; omitted: any
 * record), timeoutMs (default 30000), from (default 'earliest'), signal, and consume's other
 * options. Resolves with { topic, partition, record }.
 */
export async function waitFor(client, options) {
  if (options === null || typeof options !== 'object') throw new KafkaClientError('INVALID_ARGUMENT', 'waitFor takes { topic, match, timeoutMs, from, ... }');
  const { match = null, timeoutMs = 30_000, signal, ...consume } = options;
  if (match !== null && typeof match !== 'function')
    throw new KafkaClientError('INVALID_ARGUMENT', 'waitFor: match must be a function (record, chunk) => boolean');
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new KafkaClientError('INVALID_ARGUMENT', `waitFor: timeoutMs must be a positive number of ms, got ${timeoutMs}`);
  const given = checkSignal(signal, 'waitFor');
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const { signal: both, dispose } = anySignal(given, timeout.signal);
  let read = 0;
  try {
    for await (const chunk of client.consume({ from: 'earliest', ...consume, signal: both })) {
      for (const record of chunk.records) {
        read++;
        if (match === null || (await match(record, chunk))) return { topic: chunk.topic, partition: chunk.partition, record };
      }
    }
  } catch (e) {
    if (!timeout.signal.aborted || given?.aborted) throw given?.aborted ? reasonOf(given) : e;
  } finally {
    clearTimeout(timer);
    dispose();
  }
  if (timeout.signal.aborted) {
    throw new KafkaClientError('TIMEOUT', `waitFor: no record of ${consume.topic} matched within ${timeoutMs} ms (${read} read)`, { topic: consume.topic });
  }
  // the pass ended without one: until, untilEnd or maxRecords said where to stop, or close()
  throw new KafkaClientError(
    'NOT_FOUND',
    `waitFor: no record of ${consume.topic} matched (${read} read; the pass ended where its options said to stop, or the client was closed)`,
    { topic: consume.topic },
  );
}
