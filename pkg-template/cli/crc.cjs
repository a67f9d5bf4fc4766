// The command line's one rule for checksums and control batches, for decode, consume and capture
// alike. --crc report (the default) prints the records of a batch whose CRC does not match, marked
// (BAD-CRC in the table, "crcValid": false in JSON), says every such batch on stderr, control
// batches included, and makes the exit code 1: a bad CRC is never silent. --crc verify stops at the
// first (exit 1); --crc skip does not check. Control records (transaction markers) are not printed
// unless --control-records, as kcat and consumers leave them out.
'use strict';

const { printable } = require('../lib.cjs');
const { parse } = require('./args.cjs');

const crcUsage = `  --crc M                   report (default: the records of a batch with a bad CRC printed and
                            marked BAD-CRC, each such batch, control ones too, said on stderr,
                            exit code 1), verify (stop at the first, exit code 1) or skip
  --control-records         print control records (transaction markers: COMMIT, ABORT) too`;

const crcOptions = {
  '--crc': { value: 'M', parse: parse.oneOf('report', 'verify', 'skip') },
  '--control-records': {},
};

/** The decoder options these command-line options give: { crc, includeControlRecords }. */
function batchDecodeOptions(o) {
  return { crc: o.crc ?? 'report', includeControlRecords: Boolean(o.controlRecords) };
}

/** The batches with a bad CRC a command met, each once, said as lines for stderr. */
class BadCrcBatches {
  constructor() {
    /** 'topic/partition' -> Map baseOffset -> batch */
    this.byPartition = new Map();
  }

  /** Takes note of the bad ones among a partition's `batches`. */
  add(topic, partition, batches) {
    for (const b of batches) {
      if (b.crcValid !== false) continue;
      const where = `${printable(String(topic))}/${partition}`;
      if (!this.byPartition.has(where)) this.byPartition.set(where, new Map());
      this.byPartition.get(where).set(String(b.baseOffset), b);
    }
  }

  get count() {
    let n = 0;
    for (const batches of this.byPartition.values()) n += batches.size;
    return n;
  }

  /** One line per partition: "t/0: 2 batch(es) with a bad CRC, at offsets 5 (a control batch), 9". */
  lines() {
    return [...this.byPartition].map(([where, batches]) => {
      const offsets = [...batches].map(([offset, b]) => (b.isControl ? `${offset} (a control batch)` : offset));
      return `${where}: ${batches.size} batch(es) with a bad CRC, at offsets ${offsets.join(', ')}`;
    });
  }
}

module.exports = { BadCrcBatches, batchDecodeOptions, crcOptions, crcUsage };
