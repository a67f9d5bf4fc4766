// kafka-fetch-decoder scan: whole topics read as offset ranges on worker threads (the package's scan
// layer), filtered, aggregated and printed there; what it covered written as a coverage file that
// --resume continues; a plan written once (--plan-out) and run in shards across processes and
// machines (--plan FILE --shard I/N), each range's Parquet written atomically under a name of its own.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { KafkaClient, KafkaClientError, KafkaDecodeError } = require('../node.cjs');
const { scanInternals } = require('../lib.cjs');
const { UsageError, parseArgs, parse } = require('./args.cjs');
const { brokerOptions, brokerUsage, clientOptions } = require('./brokers.cjs');
const { filterOptions, filterUsage } = require('./filter.cjs');
const { formatOf, formatOptions } = require('./formats.cjs');
const { parseFrom, parseUntil } = require('./positions.cjs');
const { scanOutput } = require('./scan-output.cjs');
const { valueOptions, valueUsage } = require('./values.cjs');

const scanUsage = `kafka-fetch-decoder scan --bootstrap HOST:PORT --topic NAME [options]
  Reads whole topics as offset ranges on worker threads (every core by default), each range from
  its leader, nothing written to the broker: filters and aggregates run in the workers, only matches
  come back. Says what it covered (--coverage FILE): per range [from, to), the next offset to read,
  records, matches and why it stopped (end, limit, time, pruned, error, interrupted); --resume FILE
  continues exactly there. A plan (--plan-out FILE) runs in shards (--plan FILE --shard I/N) on
  other processes and machines; --format parquet writes DIR/topic=T/partition=P/FROM-TO.parquet.
${brokerUsage}
  --topic NAME              a topic (repeatable)
  --partitions N[,N...]     partitions to read (default: all; also --partition)
  --from WHERE              earliest (default), latest, an offset, -N (the last N of each
                            partition) or a time (ISO-8601, -15m, now-1h, s@MS)
  --until WHERE             end (default: the end offsets seen at the start), an offset, or a time
                            (ISO-8601, -15m, now, e@MS): each partition up to its first record
                            stamped at or after it
  --key K                   only records with this key (its UTF-8 bytes; --key-encoding hex|base64
                            for other bytes), read from the one partition Kafka's default
                            partitioner (murmur2) puts it in; the coverage marks the others pruned
  --no-key-pruning          read every partition for --key (a topic written with another partitioner)
  --where EXPR              a field path compared with a value, on decoded keys and values:
                            value.customer.id == 42, headers.region ~ "eu", key exists; && and ||
${filterUsage}
  --limit N                 stop after N matches (--resume continues after them)
  --workers N               worker threads (default: the cores available)
  --range-records N         offsets per range when planning (default 100000)
  --plan-out FILE           write the plan (the ranges) to FILE and stop
  --plan FILE               run a plan written by --plan-out
  --shard I/N               run share I of N of the plan (0-based: 0/2 and 1/2)
  --resume FILE             continue a coverage file where it stopped
  --coverage FILE           write what was covered to FILE (at the end, and on SIGINT/SIGTERM)
  --format F                table (default), ndjson (the lines of consume --json), csv, arrow (IPC
                            stream), parquet (files in --out DIR) or a format string (see consume)
  --json                    as --format ndjson
  --encoding E              bytes in ndjson and csv: base64 (default), utf8 or hex
  --csv-formulas            csv: cells that start with = + - @ as they are (see consume)
  --out PATH                a file (or DIR for parquet) instead of standard output
  --compression C           parquet's codec: zstd (default), snappy or none
  --aggregate LIST          count, per-minute, per-hour, distinct-keys, top-keys, sizes: printed as
                            JSON at the end (matches are then printed only with --out)
  --latest-per-key          the latest record of each key (a tombstone removes the key): the
                            compacted view, one line per key that survives
  --as-of TIME              with --latest-per-key: as of this time (ISO-8601, -1h, now, e@MS)
  --isolation-level L       read_uncommitted (default) or read_committed
  --crc M                   verify (default), report or skip
${valueUsage}`;

const spec = {
  ...brokerOptions,
  '--topic': { value: 'NAME', repeat: true },
  '--partitions': { value: 'N', parse: (v, name) => v.split(',').map((p) => parse.integer(0, 2 ** 31 - 1)(p, name)) },
  '--partition': { value: 'N', key: 'partitions', parse: (v, name) => v.split(',').map((p) => parse.integer(0, 2 ** 31 - 1)(p, name)) },
  '--from': { value: 'WHERE' },
  '--until': { value: 'WHERE' },
  '--key': { value: 'K' },
  '--key-encoding': { value: 'E', parse: parse.oneOf('utf8', 'hex', 'base64') },
  '--no-key-pruning': {},
  '--where': { value: 'EXPR' },
  ...filterOptions,
  '--limit': { value: 'N', parse: parse.integer(1, Number.MAX_SAFE_INTEGER) },
  '--workers': { value: 'N', parse: parse.integer(1, 256) },
  '--range-records': { value: 'N', parse: parse.integer(1, Number.MAX_SAFE_INTEGER) },
  '--plan-out': { value: 'FILE' },
  '--plan': { value: 'FILE' },
  '--shard': { value: 'I/N' },
  '--resume': { value: 'FILE' },
  '--coverage': { value: 'FILE' },
  ...formatOptions,
  '--format': { value: 'F', parse: (v, name) => (v === 'parquet' ? v : formatOptions['--format'].parse(v, name)) },
  '--json': {},
  '--encoding': { value: 'E', parse: parse.oneOf('base64', 'utf8', 'hex') },
  '--out': { value: 'PATH' },
  '--compression': { value: 'C', parse: parse.oneOf('zstd', 'snappy', 'none') },
  '--aggregate': { value: 'LIST' },
  '--latest-per-key': {},
  '--as-of': { value: 'TIME' },
  '--isolation-level': { value: 'L', parse: parse.oneOf('read_uncommitted', 'read_committed') },
  '--crc': { value: 'M', parse: parse.oneOf('verify', 'report', 'skip') },
  ...valueOptions,
};

// the options that shape a plan: with --plan or --resume they are the file's, and may only repeat it
const PLAN_SHAPING = ['from', 'until', 'partitions', 'key', 'keyEncoding', 'noKeyPruning', 'rangeRecords', 'isolationLevel'];

/** Runs scan; resolves with the exit code. */
async function run(argv, out = process.stdout, err = process.stderr) {
  const { options: o } = parseArgs(argv, spec, []);
  if (o.help) {
    out.write(`${scanUsage}\n`);
    return 0;
  }
  const question = checkOptions(o);
  const starting = readStartFiles(o);
  const bootstrap = o.bootstrap ?? starting?.scan?.bootstrap;
  if (!bootstrap) throw new UsageError('--bootstrap HOST:PORT is required');
  const clientOpts = clientOptions({ ...o, bootstrap });
  const client = new KafkaClient(clientOpts);
  const label = () => (o.topic ?? starting?.scan?.topics ?? []).join(',');
  try {
    let plan = starting?.plan ?? null;
    if (!starting) {
      plan = await scanInternals.planScan(client, { topics: o.topic, ...question.planInput });
      plan = { ...plan, bootstrap, asked: question.asked };
      if (o.planOut) {
        writeAtomically(o.planOut, scanInternals.planJson(plan), '--plan-out');
        const reading = plan.ranges.filter((r) => !r.pruned);
        err.write(
          `kafka-fetch-decoder: wrote a plan of ${reading.length} range(s) over ${new Set(reading.map((r) => `${r.topic}/${r.partition}`)).size} partition(s) to ${o.planOut}\n`,
        );
        return 0;
      }
    }
    const resumed = starting?.coverage ?? null;
    let ranges = resumed ? resumed.ranges : plan.ranges;
    if (!resumed && question.shard) ranges = scanInternals.shardOf({ ranges }, question.shard.index, question.shard.count).ranges;
    const coverage = new scanInternals.Coverage(ranges);
    // what the scan reads, from its plan (made now, or read) or the coverage it resumes
    const from = plan ?? starting.scan;
    const scanInfo = {
      bootstrap,
      topics: from.topics,
      isolationLevel: from.isolationLevel,
      key: from.key ?? null,
      keyPruning: from.keyPruning ?? true,
      asked: from.asked ?? {},
      question: starting?.scan?.question ?? question.recorded,
      ...(question.shard ? { shard: `${question.shard.index}/${question.shard.count}` } : from.shard ? { shard: from.shard } : {}),
    };
    if (resumed) checkQuestion(starting.scan.question, question.recorded);
    return await runScan({ o, clientOpts, coverage, scanInfo, question, out, err, label });
  } catch (e) {
    if (e instanceof KafkaClientError && e.code === 'INVALID_ARGUMENT') throw new UsageError(e.message);
    if (e instanceof KafkaClientError || e instanceof KafkaDecodeError) {
      err.write(`kafka-fetch-decoder: scan ${label()}: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    client.close();
  }
}

/** The scan's question from the options, checked: what the plan takes, the filters, the outputs. */
function checkOptions(o) {
  const format = o.format === 'parquet' ? 'parquet' : formatOf(o);
  if (o.plan && o.resume) throw new UsageError('--plan and --resume: give one (a coverage file holds its ranges)');
  if (o.planOut && (o.plan || o.resume)) throw new UsageError('--plan-out makes a plan: not with --plan or --resume');
  if (o.shard !== undefined && !o.plan) throw new UsageError('--shard I/N runs a share of a plan: give --plan FILE (made by --plan-out)');
  if (!o.topic && !o.plan && !o.resume) throw new UsageError('--topic NAME is required (or --plan FILE, or --resume FILE)');
  let shard = null;
  if (o.shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(o.shard);
    if (!m || Number(m[2]) < 1 || Number(m[1]) >= Number(m[2]))
      throw new UsageError(`--shard is I/N with 0 <= I < N (0-based, as JOB_COMPLETION_INDEX), got '${o.shard}'`);
    shard = { index: Number(m[1]), count: Number(m[2]) };
  }
  if (o.asOf !== undefined && !o.latestPerKey) throw new UsageError('--as-of goes with --latest-per-key');
  if (o.noKeyPruning && o.key === undefined) throw new UsageError('--no-key-pruning goes with --key K');
  if (o.keyEncoding && o.key === undefined) throw new UsageError('--key-encoding goes with --key K');
  const aggregate =
    o.aggregate === undefined
      ? []
      : o.aggregate
          .split(',')
          .map((a) => a.trim())
          .filter(Boolean);
  const unknown = aggregate.filter((a) => !scanInternals.AGGREGATES.includes(a));
  if (unknown.length) throw new UsageError(`--aggregate takes ${scanInternals.AGGREGATES.join(', ')}, got '${unknown.join(',')}'`);
  if (o.limit !== undefined && (aggregate.length || o.latestPerKey)) {
    throw new UsageError(
      `--limit stops at N matches, and ${aggregate.length ? '--aggregate' : '--latest-per-key'} is over every match of the scan: narrow it with --until, --partitions or a filter instead`,
    );
  }
  if (o.latestPerKey && ['arrow', 'parquet'].includes(format))
    throw new UsageError('--latest-per-key prints a line per key: --format table, ndjson, csv or a format string');
  if (format === 'parquet' && !o.out) throw new UsageError('--format parquet writes files: give --out DIR');
  if (o.compression && format !== 'parquet') throw new UsageError("--compression is parquet's: it goes with --format parquet");
  let where = null;
  if (o.where !== undefined) {
    try {
      scanInternals.makeMatcher({ where: o.where });
      where = o.where;
    } catch (e) {
      throw new UsageError(`--where: ${e.message}`);
    }
  }
  let key = null;
  if (o.key !== undefined) key = Buffer.from(o.key, o.keyEncoding === 'hex' ? 'hex' : o.keyEncoding === 'base64' ? 'base64' : 'utf8');
  if (o.key !== undefined && o.keyEncoding === 'hex' && !/^([0-9a-fA-F]{2})*$/.test(o.key)) throw new UsageError(`--key ${o.key}: not hex`);
  const now = Date.now();
  const planInput = {
    partitions: o.partitions,
    from: parseFrom(o.from, now),
    until: parseUntil(o.until, now) ?? 'end',
    isolationLevel: o.isolationLevel,
    key,
    keyPruning: !o.noKeyPruning,
    rangeRecords: o.rangeRecords,
  };
  if (o.latestPerKey && o.asOf !== undefined) {
    // the compacted view as of T: each partition up to its first record stamped after T
    const asOf = /** @type {{ time?: number }} a time or not (checked below) */ (parseUntil(o.asOf, now));
    if (asOf?.time === undefined) throw new UsageError(`--as-of is a time (ISO-8601, -1h, now, e@MS), got '${o.asOf}'`);
    if (o.until === undefined) planInput.until = { time: asOf.time + 1 };
  }
  const asked = Object.fromEntries(PLAN_SHAPING.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
  const grep = o.grep === undefined ? null : { pattern: o.grep, in: o.grepIn ?? null };
  return {
    format,
    shard,
    aggregate,
    planInput,
    asked,
    latest: o.latestPerKey ? { asOf: o.asOf === undefined ? null : /** @type {{ time: number }} checked above */ (parseUntil(o.asOf, now)).time } : null,
    filters: { key: null, grep, where },
    // what a resumed scan must ask again (or leave out): its matches would differ otherwise
    recorded: { where, grep, filter: o.filter ?? null, key: o.key ?? null, latestPerKey: Boolean(o.latestPerKey), aggregate },
  };
}

/** --plan or --resume read and checked against the options given with them; null without either. */
function readStartFiles(o) {
  const file = o.plan ?? o.resume;
  if (!file) return null;
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`${o.plan ? '--plan' : '--resume'} ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  let plan = null;
  let coverage = null;
  let scan;
  try {
    if (o.plan) {
      plan = scanInternals.readPlan(text, `--plan ${file}`);
      scan = plan;
    } else {
      coverage = scanInternals.readCoverage(text, `--resume ${file}`);
      scan = coverage.scan;
    }
  } catch (e) {
    throw new UsageError(e.message);
  }
  const name = o.plan ? `--plan ${file}` : `--resume ${file}`;
  if (o.bootstrap && scan.bootstrap && addresses(o.bootstrap) !== addresses(scan.bootstrap)) {
    throw new UsageError(`--bootstrap ${o.bootstrap} is not the cluster of ${name} (${scan.bootstrap})`);
  }
  if (o.topic && scan.topics && [...new Set(o.topic)].sort().join('\n') !== [...scan.topics].sort().join('\n')) {
    throw new UsageError(`--topic ${o.topic.join(',')} is not what ${name} reads (${scan.topics.join(',')})`);
  }
  for (const k of PLAN_SHAPING) {
    if (o[k] === undefined) continue;
    const recorded = scan.asked?.[k];
    if (JSON.stringify(recorded) !== JSON.stringify(o[k])) {
      const flag = `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
      throw new UsageError(
        `${flag} ${o[k] === true ? '' : o[k]} differs from ${name}, which was made ${recorded === undefined ? 'without it' : `with ${flag} ${recorded}`}`.replace(
          /  +/g,
          ' ',
        ),
      );
    }
  }
  return { plan, coverage, scan };
}

/** A bootstrap list in one form for comparing: its addresses sorted. */
function addresses(list) {
  return String(list)
    .split(',')
    .map((a) => a.trim().toLowerCase())
    .filter(Boolean)
    .sort()
    .join(',');
}

/** A resumed scan asks what its coverage file asked: the same filters, or none given. */
function checkQuestion(recorded, now) {
  if (!recorded) return;
  for (const [k, v] of Object.entries(now)) {
    const given = Array.isArray(v) ? v.length > 0 : v !== null && v !== false;
    if (given && JSON.stringify(v) !== JSON.stringify(recorded[k])) {
      throw new UsageError(
        `the resumed scan asked ${k} ${JSON.stringify(recorded[k])}; this one ${JSON.stringify(v)}: resume with the same question (or leave it out)`,
      );
    }
  }
}

async function runScan({ o, clientOpts, coverage, scanInfo, question, out, err, label }) {
  const recorded = scanInfo.question ?? question.recorded;
  // a resumed scan asks its file's question where the command line leaves it out
  const effective = { ...o };
  if (o.resume) {
    const q = scanInfo.question;
    if (effective.where === undefined && q.where) effective.where = q.where;
    if (effective.grep === undefined && q.grep) [effective.grep, effective.grepIn] = [q.grep.pattern, q.grep.in ?? undefined];
    if (effective.filter === undefined && q.filter) effective.filter = q.filter;
  }
  const filters = {
    key: scanInfo.key,
    grep: effective.grep === undefined ? null : { pattern: effective.grep, in: effective.grepIn ?? null },
    where: effective.where ?? null,
  };
  const output = scanOutput(effective, question, out);
  // keys and values decoded where the output prints them so (a Where reads JSON and text itself)
  const decoded = Boolean(output.decoded);
  const run = new scanInternals.ScanRun({
    coverage,
    workers: o.workers ?? scanInternals.cores(),
    startWorker: scanInternals.startWorker,
    limit: o.limit ?? null,
    aggregate: question.aggregate,
    latest: question.latest,
    write: (range, payload) => output.write(range, payload),
    progress: progressLine(err),
    session: {
      kind: 'cli',
      o: effective,
      client: clientOpts,
      filters,
      output: output.kind,
      decoded,
      terminal: output.terminal,
      limit: o.limit ?? null,
      aggregate: question.aggregate,
      latest: question.latest,
      parquet: output.parquet ?? null,
    },
  });
  const stop = new AbortController();
  const onSignal = (signal) => {
    err.write(`\nkafka-fetch-decoder: scan ${label()}: ${signal}: stopping, writing the coverage\n`);
    stop.abort(signal);
  };
  const sigint = () => onSignal('SIGINT');
  const sigterm = () => onSignal('SIGTERM');
  process.on('SIGINT', sigint);
  process.on('SIGTERM', sigterm);
  let failure = null;
  try {
    await run.run(stop.signal);
  } catch (e) {
    failure = e;
  } finally {
    process.off('SIGINT', sigint);
    process.off('SIGTERM', sigterm);
  }
  await output.end(run);
  if (o.coverage) writeAtomically(o.coverage, `${JSON.stringify(coverage.toJSON({ ...scanInfo, question: recorded }), null, 1)}\n`, '--coverage');
  const totals = coverage.totals();
  progressLine(err).done();
  const why = stoppedBecause(coverage);
  if (err.isTTY || (!totals.complete && !stop.signal.aborted)) {
    err.write(
      `kafka-fetch-decoder: scan ${label()}: ${totals.records} records read in ${totals.ranges} range(s), ${totals.matches} match(es)${totals.complete ? ', complete' : `; not complete: ${why}${o.coverage ? ` (continue with --resume ${o.coverage})` : ''}`}\n`,
    );
  }
  if (failure) {
    err.write(`kafka-fetch-decoder: scan ${label()}: ${failure.message}\n`);
    return 1;
  }
  if (stop.signal.aborted) return stop.signal.reason === 'SIGTERM' ? 143 : 130;
  return 0;
}

/** Why ranges stopped early, in a few words. */
function stoppedBecause(coverage) {
  const counts = new Map();
  for (const r of coverage.ranges) if (!['end', 'time', 'pruned'].includes(r.stop)) counts.set(r.stop, (counts.get(r.stop) ?? 0) + 1);
  return [...counts].map(([stop, n]) => `${n} range(s) stopped by ${stop}`).join(', ');
}

/**
 * A progress line on stderr when it is a terminal: records/s, matches, and each partition's share of
 * its offsets read (the least and most done past eight partitions).
 */
function progressLine(stream) {
  if (!stream.isTTY) return Object.assign(() => {}, { done() {} });
  let last = 0;
  const started = Date.now();
  const update = (run) => {
    const now = Date.now();
    if (now - last < 250 || !run) return;
    last = now;
    const { records, matches, partitions } = run.standing();
    const share = (p) => (p.span ? Number((p.read * 100n) / p.span) : 100);
    const shares = partitions.map((p) => ({ label: `${p.partition}`, share: share(p) }));
    const shown =
      shares.length <= 8
        ? shares.map((p) => `${p.label}:${p.share}%`).join(' ')
        : `partitions ${Math.min(...shares.map((p) => p.share))}%-${Math.max(...shares.map((p) => p.share))}%`;
    const rate = Math.round(records / Math.max((now - started) / 1000, 0.001));
    stream.write(`\r\x1b[Kscan: ${records} records (${rate}/s), ${matches} matches; ${shown}`.slice(0, (stream.columns || 120) + 6));
  };
  update.done = () => stream.write('\r\x1b[K');
  return update;
}

/** Writes `text` to `file` through a temporary name and a rename: a reader never sees half of it. */
function writeAtomically(file, text, option) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new UsageError(`${option} ${file}: cannot write it (${e.code ?? e.message})`);
  }
}

module.exports = { run, scanUsage };
