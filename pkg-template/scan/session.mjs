// What a scan worker does with the ranges it reads, made from the plain options the caller sends
// (worker-core.mjs): the library's session, whose matches come back as records. The command line's
// session (cli/scan-session.cjs) prints instead, and the page has its own.

import { KafkaClient } from '../client/client.mjs';
import { arrowIPC } from '../columns/ipc.mjs';
import { takeRows } from '../columns/take.mjs';
import { toArrow } from '../columns/arrow.mjs';
import { copyBytes } from '../decoder/bytes.mjs';
import { ValueDecoder } from '../values/decoder.mjs';
import { makeAggregates } from './aggregates.mjs';
import { LatestPerKey } from './latest.mjs';
import { makeMatcher } from './matcher.mjs';

/**
 * The consume options every session reads ranges with, from a spec's { isolationLevel, crc,
 * partitionMaxBytes, fetchMaxBytes } and the ValueDecoder (or null) its filters and output need.
 * `int64` is the records' (the worker compares offsets as BigInts either way).
 */
export function rangeConsumeOptions(spec, values) {
  return {
    isolationLevel: spec.isolationLevel ?? 'read_uncommitted',
    decode: { crc: spec.crc ?? 'verify', int64: spec.int64 ?? 'bigint' },
    values,
    partitionMaxBytes: spec.partitionMaxBytes ?? 4 * 1024 * 1024,
    fetchMaxBytes: spec.fetchMaxBytes ?? 64 * 1024 * 1024,
  };
}

/** The parts every session shares: limit, aggregates and latest, from the spec. */
export function commonSession(spec) {
  return {
    limit: spec.limit ?? null,
    aggregates: () => (spec.aggregate?.length ? makeAggregates(spec.aggregate) : null),
    latest: () => (spec.latest ? new LatestPerKey(spec.latest.asOf ?? null) : null),
  };
}

/**
 * The library's session: spec { client (KafkaClient options), isolationLevel, crc, int64, values
 * (ValueDecoder options or null), filters (matcher.mjs), limit, aggregate, latest, output }. With
 * output 'records' a match comes back as a record's own fields with its bytes copied (a few matches
 * of a large response do not bring the response along; the records of one message share their
 * batch objects); with 'arrow', a chunk's matches as an Arrow IPC table, moved; with 'none',
 * nothing (aggregates only).
 */
export function librarySession(spec) {
  const values = spec.values ? new ValueDecoder(spec.values) : null;
  const plain = (r) => ({
    offset: r.offset,
    timestamp: r.timestamp,
    key: copyBytes(r.key),
    value: copyBytes(r.value),
    headers: r.headers.map((h) => ({ key: h.key, value: copyBytes(h.value) })),
    batch: r.batch,
    leaderEpoch: r.leaderEpoch,
    isControl: r.isControl,
    controlType: r.controlType,
    ...(r.decodedKey !== undefined ? { decodedKey: r.decodedKey, decodedValue: r.decodedValue } : {}),
  });
  return {
    ...commonSession(spec),
    client: new KafkaClient(spec.client),
    consume: rangeConsumeOptions(spec, values),
    match: makeMatcher(spec.filters, { plain: !values }),
    output:
      spec.output === 'none'
        ? { kind: 'none' }
        : {
            kind: 'stream',
            encode:
              spec.output === 'arrow'
                ? (topic, partition, records, chunk) => {
                    const ipc = arrowIPC(matchesTable(chunk, records, Boolean(values)));
                    return {
                      payload: { topic, partition, ipc },
                      transfer: ipc.byteOffset === 0 && ipc.byteLength === ipc.buffer.byteLength ? [ipc.buffer] : [],
                    };
                  }
                : (topic, partition, records) => ({ payload: { topic, partition, records: records.map(plain) }, transfer: [] }),
          },
    line: (topic, partition, r) => ({ topic, partition, record: plain(r) }),
  };
}

/** The matches of a consume chunk as an Arrow table: the chunk's records, or the rows of those that matched. */
export function matchesTable(chunk, matched, decoded) {
  const table = toArrow(chunk, { decoded, topic: chunk.topic });
  const records = chunk.records;
  if (matched.length === records.length) return table;
  // matches are records of the chunk, in its order
  const rows = new Int32Array(matched.length);
  for (let i = 0, k = 0; k < matched.length; i++) if (records[i] === matched[k]) rows[k++] = i;
  return takeRows(table, rows);
}
