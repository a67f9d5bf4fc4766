// `kafka-fetch-decoder offsets` asks the partitions' leaders for an offset (ListOffsets): the
// earliest, the latest, or the first at or after a time. One line per partition as kcat -Q prints
// it ("topic [0] offset 42"), or JSON lines; a time no record is stamped at or after gives -1
// (null in JSON), and a line on stderr says so.
'use strict';

const { printable } = require('../lib.cjs');
const { KafkaClient, KafkaClientError } = require('../node.cjs');
const { UsageError, parseArgs, parse } = require('./args.cjs');
const { brokerOptions, brokerUsage, clientOptions } = require('./brokers.cjs');
const { jsonText } = require('./output.cjs');
const { parseAt } = require('./positions.cjs');

const offsetsUsage = `kafka-fetch-decoder offsets --bootstrap HOST:PORT --topic NAME --at WHERE [options]
  Prints each partition's offset at WHERE, a line each as kcat -Q does ("topic [0] offset 42"), or
  JSON lines with --json ({"topic", "partition", "offset", "timestamp"}: int64 as strings). For a
  time, the offset is the first record's stamped at or after it, and its timestamp; where there is
  none (the time is after the last record, or the broker looks no time up) the offset is -1 (null
  in JSON), said on stderr.
${brokerUsage}
  --topic NAME              the topic (repeatable)
  --partition N[,N...]      these partitions only (default: all)
  --at WHERE                earliest, latest, or a time: epoch ms (as kcat -Q), ISO-8601
                            (2024-05-01T12:00:00Z) or relative to now (-15m, now-1h)
  --isolation-level L       read_uncommitted (default) or read_committed (latest is then the last
                            stable offset)
  --json                    JSON lines`;

const spec = {
  ...brokerOptions,
  '--topic': { value: 'NAME', repeat: true },
  '--partition': { value: 'N', parse: (v, name) => v.split(',').map((p) => parse.integer(0, 2 ** 31 - 1)(p, name)) },
  '--at': { value: 'WHERE' },
  '--isolation-level': { value: 'L', parse: parse.oneOf('read_uncommitted', 'read_committed') },
  '--json': {},
};

/** Runs offsets; resolves with the exit code. */
async function run(argv, out = process.stdout, err = process.stderr) {
  const { options: o } = parseArgs(argv, spec, []);
  if (o.help) {
    out.write(`${offsetsUsage}\n`);
    return 0;
  }
  if (!o.topic) throw new UsageError('--topic NAME is required');
  const at = parseAt(o.at);
  const time = typeof at === 'object' ? at.time : null;
  const byTime = time !== null;
  const client = new KafkaClient({ ...clientOptions(o), retries: 2 });
  const lines = [];
  const none = [];
  try {
    for (const topic of [...new Set(o.topic)]) {
      const found = await client.listOffsets(topic, { partitions: o.partition, at, isolationLevel: o.isolationLevel, int64: 'bigint' });
      for (const partition of [...found.keys()].sort((a, b) => a - b)) {
        const { offset, timestamp } = found.get(partition);
        // none found is offset -1 with timestamp -1 (some brokers answer offset 0 with timestamp -1)
        const missing = byTime && (offset < 0n || timestamp < 0n);
        if (missing) none.push(`${printable(topic)} [${partition}]`);
        const shownOffset = missing ? -1n : offset;
        lines.push(
          o.json
            ? jsonText({ topic, partition, offset: missing ? null : String(offset), timestamp: missing || timestamp < 0n ? null : String(timestamp) })
            : `${printable(topic)} [${partition}] offset ${shownOffset}`,
        );
      }
    }
  } catch (e) {
    if (!(e instanceof KafkaClientError)) throw e;
    err.write(`kafka-fetch-decoder: offsets: ${e.message}\n`);
    return 1;
  } finally {
    client.close();
  }
  out.write(lines.length ? `${lines.join('\n')}\n` : '');
  if (none.length) {
    err.write(
      `kafka-fetch-decoder: offsets: no record stamped at or after ${new Date(time).toISOString()} in ${none.join(', ')}: the time is after their last record, or the broker looks no time up\n`,
    );
  }
  return 0;
}

module.exports = { run, offsetsUsage };
