// The command line's scan session, made in each scan worker thread (scan/worker-node.cjs) from the
// parsed command line: the records a worker reads are filtered there (--key, --grep, --where and
// the JavaScript --filter), decoded by the value options there, and printed there: text lines
// (table, ndjson, csv, a format string) sent back in order, Arrow IPC sent back, or Parquet files
// written per range. Only what is printed comes back to the main thread.
'use strict';

const { KafkaClient } = require('../node.cjs');
const { scanInternals } = require('../lib.cjs');
const { RecordText } = require('./formats.cjs');
const { recordFilter } = require('./filter.cjs');
const { autoDecoder, valueDecoderFrom } = require('./values.cjs');

/**
 * spec: { kind: 'cli', o (the parsed options), client (KafkaClient options), filters (matcher),
 * output: 'text' | 'arrow' | 'parquet' | 'none', decoded (whether the output prints decoded
 * values), terminal, limit, aggregate, latest, parquet ({ dir, compression }) }.
 */
async function cliSession(spec) {
  const { o } = spec;
  let values = valueDecoderFrom(o);
  // the output prints decoded keys and values (a format string's %{value:json}); a Where reads JSON
  // and text itself, and by the value options' schemas when they are given
  if (!values && spec.decoded) values = autoDecoder();
  const js = recordFilter({ filter: o.filter, filterTimeoutMs: o.filterTimeoutMs, filterStrict: o.filterStrict });
  const session = {
    ...scanInternals.commonSession(spec),
    client: new KafkaClient(spec.client),
    consume: scanInternals.rangeConsumeOptions({ isolationLevel: o.isolationLevel, crc: o.crc }, values),
    match: scanInternals.makeMatcher(spec.filters, { extra: js ? (topic, partition, records) => js.pick(topic, partition, records) : null, plain: !values }),
    output: { kind: 'none' },
    line: null,
  };
  if (spec.output === 'text' || spec.latest) {
    const text = new RecordText(o, { decoded: spec.decoded, terminal: spec.terminal });
    const bytes = (lines) => (typeof lines === 'string' ? Buffer.from(lines) : lines);
    session.line = (topic, partition, r) => bytes(text.lines(topic, partition, [r]));
    if (spec.output === 'text' && !spec.latest) {
      session.output = {
        kind: 'stream',
        encode: (topic, partition, records) => {
          const payload = bytes(text.lines(topic, partition, records));
          return { payload, transfer: [] };
        },
      };
    }
  }
  if (spec.output === 'arrow') session.output = require('./scan-arrow.cjs').arrowStream(spec);
  if (spec.output === 'parquet') session.output = await require('./scan-parquet.cjs').parquetFiles(spec);
  return session;
}

module.exports = { cliSession };
