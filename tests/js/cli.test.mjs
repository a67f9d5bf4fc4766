// The command line (pkg/cli.cjs): tables and JSON lines, problems in the data always visible with a
// non-zero exit, and every user error one line with exit code 2.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { corpusDir, root } from './helpers.mjs';

const CLI = path.join(root, 'pkg/cli.cjs');
const MULTIBATCH = path.join(root, 'samples/tansu_v12_multibatch.bin');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-cli-'));

function cli(...args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout.toString(), err: r.stderr.toString() };
}

test('a table of the bundled sample, and JSON lines of a capture', () => {
  const table = cli();
  assert.equal(table.code, 0, table.err);
  assert.match(table.out, /topic\s+part\s+offset\s+time\s+key\s+value\s+hdrs\s+codec\s+flags/);
  const json = cli(MULTIBATCH, '--json');
  assert.equal(json.code, 0, json.err);
  const lines = json.out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(lines.length, 1680);
  assert.equal(lines[0].topic, 'payments-none');
  assert.equal(typeof lines[0].offset, 'string');
  assert.equal(Buffer.from(lines[0].key, 'base64').toString(), 'user-65');
  const text = JSON.parse(cli(MULTIBATCH, '--json', '--encoding', 'utf8').out.split('\n')[0]);
  assert.equal(text.key, 'user-65');
  const hex = JSON.parse(cli(MULTIBATCH, '--json', '--encoding', 'hex').out.split('\n')[0]);
  assert.equal(hex.key, Buffer.from('user-65').toString('hex'));
});

test('one flipped byte inside a batch: the bad CRC is reported and the exit code is 1', () => {
  const frame = fs.readFileSync(MULTIBATCH);
  frame[5000] ^= 1;
  const file = path.join(tmp, 'flipped.bin');
  fs.writeFileSync(file, frame);
  fs.copyFileSync(MULTIBATCH.replace(/\.bin$/, '.json'), file.replace(/\.bin$/, '.json'));
  const table = cli(file);
  assert.equal(table.code, 1);
  assert.match(table.out, /BAD-CRC/);
  assert.match(table.err, /payments-none\/0: 1 batch\(es\) with a bad CRC/);
  const json = cli(file, '--json');
  assert.equal(json.code, 1);
  assert.ok(json.out.split('\n').some((l) => l.includes('"crcValid":false')));
  const verify = cli(file, '--crc', 'verify');
  assert.equal(verify.code, 1);
  assert.match(verify.err, /CRC_MISMATCH/);
});

test('--json marks a record of an aborted transaction "aborted"; control records, with --control-records, by their type', () => {
  const name = 'tansu_v12_txn_aborted_list';
  const meta = JSON.parse(fs.readFileSync(path.join(corpusDir, `${name}.json`), 'utf8'));
  const want = meta.expected.topics.flatMap((t) => t.partitions.flatMap((p) => p.records));
  const marked = (out) =>
    out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .map((l) => [l.offset, l.aborted ?? false, l.control ?? null]);
  const expected = want.map((x) => [String(x.offset), x.aborted === true, x.control ? x.control_type : null]);
  assert.ok(want.some((x) => x.aborted) && want.some((x) => !x.aborted) && want.some((x) => x.control));
  const r = cli(path.join(corpusDir, `${name}.bin`), '--api-version', String(meta.api_version), '--json', '--control-records');
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(marked(r.out), expected);
  // as consume prints them: without the markers
  const data = cli(path.join(corpusDir, `${name}.bin`), '--api-version', String(meta.api_version), '--json');
  assert.equal(data.code, 0, data.err);
  assert.deepEqual(
    marked(data.out),
    expected.filter(([, , control]) => control === null),
  );
});

test('a frame read at the wrong version says which one decodes it', () => {
  const r = cli(MULTIBATCH, '--api-version', '11');
  assert.equal(r.code, 1);
  assert.match(r.err, /this frame decodes as Fetch v12; you passed v11/);
  assert.equal(r.err.trim().split('\n').length, 1);
});

test('every user error is one line and exit code 2', () => {
  const cases = [
    [['/no/such/file.bin'], /no such file/],
    [[tmp], /is a directory/],
    [[MULTIBATCH, '--api-version'], /--api-version needs a value/],
    [[MULTIBATCH, '--api-version', 'twelve'], /--api-version must be an integer from 0 to 18/],
    [[MULTIBATCH, '--api-version', '19'], /--api-version must be an integer from 0 to 18/],
    [[MULTIBATCH, '--crc', 'maybe'], /--crc must be one of report, verify, skip/],
    [[MULTIBATCH, '--encoding', 'latin1'], /--encoding must be one of/],
    [[MULTIBATCH, 'extra'], /unexpected argument extra/],
    [[MULTIBATCH, '--bogus'], /unknown option --bogus/],
    [[path.join(tmp, 'x.bin')], /no such file/],
    [['consume', '--bootstrap', '127.0.0.1', '--topic', 't'], /a broker address is HOST:PORT, got '127.0.0.1'/],
    [['ui', '--bootstrap', 'localhost:99999'], /a broker address is HOST:PORT/],
    [['capture', '--bootstrap', '127.0.0.1:1', '--topic', 't', '--out', path.join(MULTIBATCH, 'sub')], /--out .*: cannot create it \(ENOTDIR\)/],
    [['capture', '--bootstrap', '127.0.0.1:1', '--topic', 't', '--out', path.join(tmp, 'earlier-capture')], /already holds a capture \(000001\.bin/],
    [['consume', '--bootstrap', '127.0.0.1:1', '--topic', 't', '--from', '18446744073709551616'], /past the largest offset Kafka has/],
    // a scheme or no port: refused before any connection (tcp://host:9092 was tried as host 'tcp://host')
    [
      ['consume', '--bootstrap', 'tcp://127.0.0.1:9092', '--topic', 't'],
      /a broker address is HOST:PORT without a scheme, got 'tcp:\/\/127\.0\.0\.1:9092' \(give '127\.0\.0\.1:9092'\)/,
    ],
    [['metadata', '--bootstrap', 'kafka://broker:9092'], /without a scheme, got 'kafka:\/\/broker:9092' \(give 'broker:9092'\)/],
    [['offsets', '--bootstrap', 'localhost', '--topic', 't', '--at', 'latest'], /a broker address is HOST:PORT, got 'localhost' \(the port is missing\)/],
    [['consume', '--bootstrap', '127.0.0.1:1,::1', '--topic', 't'], /a broker address is HOST:PORT, got '::1'/],
    // an option that takes one value, given twice: the first would silently lose
    [
      ['consume', '--bootstrap', '127.0.0.1:1', '--topic', 't', '--from', '5', '--from', '6'],
      /^kafka-fetch-decoder: --from was given twice: it takes one value$/m,
    ],
    [[MULTIBATCH, '--api-version', '12', '--api-version', '11'], /--api-version was given twice/],
    [['metadata', '--bootstrap', '127.0.0.1:1', '--bootstrap', '127.0.0.1:2'], /--bootstrap was given twice/],
    // positions
    [['consume', '--bootstrap', '127.0.0.1:1', '--topic', 't', '--from', 'stored'], /--from stored is a consumer group's position/],
    [
      ['consume', '--bootstrap', '127.0.0.1:1', '--topic', 't', '--from', 'yesterday'],
      /--from must be earliest \(or beginning\), latest \(or end\), an offset, -N/,
    ],
    [['consume', '--bootstrap', '127.0.0.1:1', '--topic', 't', '--until', '-15'], /--until must be end, an offset, or a time/],
    [
      ['consume', '--bootstrap', '127.0.0.1:1', '--topic', 't', '--from', '-18446744073709551616'],
      /--from -N: 18446744073709551616 is past the largest offset/,
    ],
    [['consume', '--bootstrap', '127.0.0.1:1'], /--topic NAME \(or --topic-regex REGEX\) is required/],
    [['consume', '--bootstrap', '127.0.0.1:1', '--topic-regex', '(orders'], /--topic-regex \(orders: not a regular expression/],
    [['offsets', '--bootstrap', '127.0.0.1:1', '--topic', 't'], /--at is required: earliest, latest, or a time/],
    [['offsets', '--bootstrap', '127.0.0.1:1', '--topic', 't', '--at', 'soon'], /--at must be earliest, latest, or a time/],
    [['offsets', '--bootstrap', '127.0.0.1:1', '--at', 'latest'], /--topic NAME is required/],
    [['consume', '--bootstrap', '127.0.0.1:1', '--topic', 't', '--connect-retry-ms', '-1'], /--connect-retry-ms must be an integer from 0/],
    // the cluster's views
    [['group', '--bootstrap', '127.0.0.1:1'], /the group id is required: kafka-fetch-decoder group GROUP/],
    [['group', 'g', '--bootstrap', '127.0.0.1:1', '--max-lag', '-1'], /--max-lag must be an integer from 0/],
    [['group', 'g', 'h', '--bootstrap', '127.0.0.1:1'], /unexpected argument h/],
    [['groups', '--bootstrap', '127.0.0.1:1', '--topic', 't'], /unknown option --topic/],
    [['configs', '--bootstrap', '127.0.0.1:1'], /give --topic NAME or --broker N \(one of them\)/],
    [['configs', '--bootstrap', '127.0.0.1:1', '--topic', 't', '--broker', '1'], /give --topic NAME or --broker N/],
    [['configs', '--bootstrap', '127.0.0.1:1', '--broker', 'one'], /--broker must be an integer/],
  ];
  fs.mkdirSync(path.join(tmp, 'earlier-capture'));
  fs.writeFileSync(path.join(tmp, 'earlier-capture', '000001.bin'), fs.readFileSync(MULTIBATCH));
  fs.writeFileSync(path.join(tmp, 'noversion.bin'), fs.readFileSync(MULTIBATCH));
  cases.push([[path.join(tmp, 'noversion.bin')], /pass --api-version N \(the FetchResponse version it was sent with\)$/m]);
  fs.writeFileSync(path.join(tmp, 'badjson.bin'), fs.readFileSync(MULTIBATCH));
  fs.writeFileSync(path.join(tmp, 'badjson.json'), '{ "api_version": 12,');
  cases.push([[path.join(tmp, 'badjson.bin')], /pass --api-version N .*badjson\.json is not JSON\)/]);
  fs.writeFileSync(path.join(tmp, 'oddjson.bin'), fs.readFileSync(MULTIBATCH));
  fs.writeFileSync(path.join(tmp, 'oddjson.json'), '{ "api_version": "x" }');
  cases.push([[path.join(tmp, 'oddjson.bin')], /oddjson\.json has no api_version from 0 to 18\)/]);
  for (const [args, message] of cases) {
    const r = cli(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, message);
    assert.equal(r.err.trim().split('\n').length, 1, `one line for ${args.join(' ')}: ${r.err}`);
    assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
  }
});

test('the table never cuts a number: an offset wider than its column is printed whole', () => {
  // one magic 2 batch at offset 123456789 holding one record (value "hi"); read with --crc skip
  const record = Buffer.from([0x10, 0, 0, 0, 0x01, 0x04, 0x68, 0x69, 0]);
  const batch = Buffer.alloc(61 + record.length);
  batch.writeBigInt64BE(123456789n, 0);
  batch.writeInt32BE(batch.length - 12, 8);
  batch.writeInt8(2, 16); // magic
  batch.writeBigInt64BE(-1n, 43); // producer id
  batch.writeInt32BE(1, 57); // record count
  record.copy(batch, 61);
  const file = path.join(tmp, 'big-offset.log');
  fs.writeFileSync(file, batch);
  const r = cli(file, '--crc', 'skip');
  assert.equal(r.code, 0, r.err);
  const row = r.out.split('\n')[2];
  assert.match(row, /\b123456789\b/);
  assert.match(row, /\bhi\b/);
});

test('--value-format protobuf-raw: fields by number in the table and in JSON; auto picks it for binary that parses', () => {
  // one magic 2 batch holding one record whose value is Protobuf: field 1 = 150, field 2 = "abc"
  const value = [0x08, 0x96, 0x01, 0x12, 0x03, 0x61, 0x62, 0x63];
  const body = [0, 0, 0, 0x01, value.length * 2, ...value, 0];
  const record = Buffer.from([body.length * 2, ...body]);
  const batch = Buffer.alloc(61 + record.length);
  batch.writeInt32BE(batch.length - 12, 8);
  batch.writeInt8(2, 16); // magic
  batch.writeBigInt64BE(-1n, 43); // producer id
  batch.writeInt32BE(1, 57); // record count
  record.copy(batch, 61);
  const file = path.join(tmp, 'protobuf-value.log');
  fs.writeFileSync(file, batch);
  const table = cli(file, '--crc', 'skip', '--value-format', 'protobuf-raw');
  assert.equal(table.code, 0, table.err);
  assert.match(table.out.split('\n')[2], /1: 150 2: "abc"/);
  const json = JSON.parse(cli(file, '--crc', 'skip', '--value-format', 'protobuf-raw', '--json').out.split('\n')[0]);
  assert.equal(json.valueFormat, 'protobuf-raw');
  assert.deepEqual(json.value, [
    { field: 1, type: 'varint', value: '150' },
    { field: 2, type: 'string', value: 'abc' },
  ]);
  assert.equal(JSON.parse(cli(file, '--crc', 'skip', '--key-format', 'auto', '--json').out.split('\n')[0]).valueFormat, 'protobuf-raw');
});

test('- reads the frame from standard input', () => {
  const r = spawnSync(process.execPath, [CLI, '-', '--api-version', '12', '--json'], { input: fs.readFileSync(MULTIBATCH), maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr.toString());
  assert.equal(r.stdout.toString(), cli(MULTIBATCH, '--json').out);
});

test('output that cannot be written is one line and exit code 1', { skip: !fs.existsSync('/dev/full') }, () => {
  const r = spawnSync(process.execPath, [CLI, MULTIBATCH], { stdio: ['ignore', fs.openSync('/dev/full', 'w'), 'pipe'] });
  assert.equal(r.status, 1);
  assert.equal(r.stderr.toString(), 'kafka-fetch-decoder: cannot write the output: ENOSPC\n');
});

test('--help lists every command and option; --version prints the version', () => {
  const r = cli('--help');
  assert.equal(r.code, 0);
  assert.equal(cli('--version').out, `${JSON.parse(fs.readFileSync(path.join(root, 'pkg/package.json'), 'utf8')).version}\n`);
  for (const word of [
    'decode',
    '--api-version',
    '--no-header',
    '--json',
    '--encoding',
    '--isolation-level',
    '--crc',
    '--record-set',
    'metadata',
    'offsets',
    '--offsets',
    '--at',
    '--topic-regex',
    '--until',
    '--grep',
    '--filter',
    '--connect-retry-ms',
    'groups',
    'group GROUP',
    '--max-lag',
    'configs',
    '--broker',
    'LOG-END-OFFSET',
  ]) {
    assert.ok(r.out.includes(word), word);
  }
  // consume's JSON lines: the partition is a number (offset and timestamp are strings)
  const consume = cli('consume', '--help').out;
  assert.match(consume, /\(topic, offset and timestamp as strings, partition a number,/);
  assert.equal(JSON.parse(cli(MULTIBATCH, '--json').out.split('\n')[0]).partition, 0);
  for (const command of ['metadata', 'offsets', 'groups', 'configs']) {
    const help = cli(command, '--help');
    assert.equal(help.code, 0);
    assert.match(help.out, new RegExp(`^kafka-fetch-decoder ${command} --bootstrap HOST:PORT`));
  }
});

test('a FILE that does not decode says so in one line, with no empty table before it', () => {
  const file = path.join(tmp, 'not-a-response.bin');
  fs.writeFileSync(file, Buffer.from('00000001000000000000000100000000', 'hex'));
  const r = cli(file, '--api-version', '4');
  assert.equal(r.code, 1);
  assert.equal(r.out, '');
  assert.match(r.err, /^kafka-fetch-decoder: .*not-a-response\.bin: the response ends early: input ends early at byte 14/);
  assert.equal(r.err.trim().split('\n').length, 1);
  // a response with no records is still an empty table, as before
  const empty = path.join(tmp, 'no-topics.bin');
  fs.writeFileSync(empty, Buffer.from('000000010000000000000000', 'hex'));
  const e = cli(empty, '--api-version', '4');
  assert.equal(e.code, 0, e.err);
  assert.match(e.out, /^topic\s+part\s+offset/);
});

test('--format arrow --out FILE, csv and ndjson: the records of --json, in each', () => {
  const json = cli(MULTIBATCH, '--json')
    .out.trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const file = path.join(tmp, 'multibatch.arrows');
  const arrow = cli(MULTIBATCH, '--format', 'arrow', '--out', file);
  assert.equal(arrow.code, 0, arrow.err);
  assert.equal(arrow.out, '', 'nothing on standard output');
  const read = `
import sys, json, base64
import pyarrow as pa, pyarrow.ipc as ipc
t = ipc.open_stream(open(sys.argv[1], 'rb')).read_all()
ts = t.column('timestamp').cast(pa.int64()).to_pylist()
b = lambda v: None if v is None else base64.b64encode(v).decode()
print(json.dumps([{'topic': r['topic'], 'partition': r['partition'], 'offset': str(r['offset']), 'timestamp': str(ts[i]), 'key': b(r['key']), 'value': b(r['value']),
  'headers': [{'key': h['key'], 'value': b(h['value'])} for h in r['headers']], 'compression': r['compression'], 'leaderEpoch': r['leader_epoch']} for i, r in enumerate(t.to_pylist())]))`;
  const rows = JSON.parse(spawnSync(path.join(root, '.venv-brokers/bin/python'), ['-c', read, file], { maxBuffer: 1 << 28 }).stdout.toString());
  assert.deepEqual(
    rows,
    json.map(({ topic, partition, offset, timestamp, key, value, headers, compression, leaderEpoch }) => ({
      topic,
      partition,
      offset,
      timestamp,
      key,
      value,
      headers,
      compression,
      leaderEpoch,
    })),
  );
  // ndjson is --json; csv: one line a record after the header, the same bytes
  assert.equal(cli(MULTIBATCH, '--format', 'ndjson').out, cli(MULTIBATCH, '--json').out);
  const csv = cli(MULTIBATCH, '--format', 'csv').out.trim().split('\n');
  assert.equal(csv.length, json.length + 1);
  assert.equal(csv[1], `payments-none,0,0,${json[0].timestamp},${json[0].key},${json[0].value},[],none,0`);
  // a record set keeps its file name as the topic, as the table does
  const log = path.join(tmp, 'segment.arrows');
  assert.equal(cli(path.join(root, 'samples/segment.log'), '--format', 'arrow', '--out', log).code, 0);
  const topics = spawnSync(path.join(root, '.venv-brokers/bin/python'), [
    '-c',
    "import sys, pyarrow.ipc as ipc; t = ipc.open_stream(open(sys.argv[1], 'rb')).read_all(); print(sorted(set(t.column('topic').to_pylist())), t.num_rows)",
    log,
  ])
    .stdout.toString()
    .trim();
  assert.equal(topics, "['segment.log'] 288");
  // errors: a format that does not exist, two formats, a directory that does not exist
  assert.match(
    cli(MULTIBATCH, '--format', 'xml').err,
    /^kafka-fetch-decoder: --format must be one of table, ndjson, kcat-json, csv, arrow, or a format string with tokens \(%t .*\), got 'xml'\n$/,
  );
  assert.match(cli(MULTIBATCH, '--json', '--format', 'csv').err, /one output format/);
  const missing = cli(MULTIBATCH, '--format', 'arrow', '--out', path.join(tmp, 'no/such/dir/f.arrows'));
  assert.deepEqual(
    [missing.code, missing.err],
    [2, `kafka-fetch-decoder: --out ${path.join(tmp, 'no/such/dir/f.arrows')}: cannot write it (no such directory)\n`],
  );
});
