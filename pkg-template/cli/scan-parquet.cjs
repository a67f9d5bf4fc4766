// A scan's matches as Parquet in the Hive layout, written by the worker that read them:
// DIR/topic=T/partition=P/FROM-TO.parquet, one file per range read (FROM-TO: the offsets it
// covers), without the topic and partition columns (Hive readers take them from the path). Each file
// is written under a temporary name that no *.parquet glob matches, then renamed; files of an earlier
// run that overlap the range are removed first, so a shard run again ends with the same files,
// nothing twice. A range without matches leaves no file.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { toParquet } = require('../arrow-node.cjs');
const { matchesTable } = require('./scan-arrow.cjs');

// a range's file, and one being written (by this run, or left by a run that was killed)
const RANGE_FILE = /^(\d+)-(\d+)\.parquet$/;
const TEMPORARY = /^\.(\d+)-(\d+)\.parquet\..*\.tmp$/;

/** The directory of a partition's files. */
const partitionDir = (dir, topic, partition) => path.join(dir, `topic=${topic}`, `partition=${partition}`);

/** The session output of --format parquet: { kind: 'file', open(range) }. */
function parquetFiles(spec) {
  const { dir, compression } = spec.parquet;
  return {
    kind: 'file',
    open(range) {
      const tables = [];
      let rows = 0;
      return {
        add(topic, partition, matched, chunk) {
          tables.push(matchesTable(chunk, matched, { decoded: spec.decoded, hive: true }));
          rows += matched.length;
        },
        /** Writes the file of [start, end) (or none without matches); resolves with what was written. */
        async finish(start, end) {
          const where = partitionDir(dir, range.topic, range.partition);
          fs.mkdirSync(where, { recursive: true });
          const name = `${start}-${end}.parquet`;
          const tmp = path.join(where, `.${name}.${process.pid}.${process.hrtime.bigint()}.tmp`);
          let bytes = null;
          if (rows) {
            bytes = await toParquet(tables, { compression });
            fs.writeFileSync(tmp, bytes);
          }
          // an earlier run's files of this range go: they overlap what this run covers
          for (const f of fs.readdirSync(where)) {
            const m = RANGE_FILE.exec(f) ?? TEMPORARY.exec(f);
            const overlaps = m && BigInt(m[1]) < end && BigInt(m[2]) > start;
            if (overlaps && f !== name && path.join(where, f) !== tmp) fs.rmSync(path.join(where, f), { force: true });
          }
          if (!rows) {
            fs.rmSync(path.join(where, name), { force: true });
            return null;
          }
          fs.renameSync(tmp, path.join(where, name));
          return { file: path.join(`topic=${range.topic}`, `partition=${range.partition}`, name), rows, bytes: bytes.length };
        },
      };
    },
  };
}

module.exports = { parquetFiles };
