// The CLI against kcat on the same broker in one run: librdkafka's 3-broker mock cluster (kcat 1.7
// cannot talk to Tansu 0.6), a topic of N small records (12 partitions: the mock keeps about
// 19,000 records a partition), read from the beginning to the end with the same output by both,
// alternated, wall time of each whole process. Both outputs are checked to hold every record.
//   node benches/js/kcat.mjs [--records 200000] [--runs 7]
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT, takeOption } from './frames.mjs';

const { startMockCluster, produce } = await import(path.join(REPO_ROOT, 'tests/live/brokers.mjs'));
const args = process.argv.slice(2);
const records = Number(takeOption(args, '--records', 200_000));
const runs = Number(takeOption(args, '--runs', 7));
const cli = path.join(REPO_ROOT, 'pkg', 'cli.cjs');

/** Runs a command; resolves with { ms, lines } (lines of its standard output). */
function timed(cmd, argv) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let lines = 0;
    let err = '';
    child.stdout.on('data', (d) => {
      for (let i = d.indexOf(10); i !== -1; i = d.indexOf(10, i + 1)) lines++;
    });
    child.stderr.on('data', (d) => { err += d; });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve({ ms: performance.now() - t0, lines }) : reject(new Error(`${cmd} exited ${code}: ${err}`))));
  });
}

const mock = await startMockCluster({ brokers: 3 });
try {
  await mock.createTopic('t', 12);
  await produce(mock.bootstrap, { topic: 't', linger_ms: 20, generate: { count: records, value_bytes: 64, partitions: 12, seed: 1, samples: 0, repeat: 1000 } }, { timeoutMs: 300_000 });
  const b = mock.bootstrap;
  const pairs = [
    ['%s\\n', ['consume', '--bootstrap', b, '--topic', 't', '--from', 'earliest', '--until-end', '--format', '%s\\n'], ['-C', '-b', b, '-t', 't', '-o', 'beginning', '-e', '-q', '-f', '%s\\n']],
    ['JSON', ['consume', '--bootstrap', b, '--topic', 't', '--from', 'earliest', '--until-end', '--json'], ['-C', '-b', b, '-t', 't', '-o', 'beginning', '-e', '-q', '-J']],
    ['%t|%p|%o|%k|%s|%T|%h|%K|%S\\n', ['consume', '--bootstrap', b, '--topic', 't', '--from', 'earliest', '--until-end', '--format', '%t|%p|%o|%k|%s|%T|%h|%K|%S\\n'],
      ['-C', '-b', b, '-t', 't', '-o', 'beginning', '-e', '-q', '-f', '%t|%p|%o|%k|%s|%T|%h|%K|%S\\n']],
  ];
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  console.log(`${records.toLocaleString('en-US')} records of 64 B, 12 partitions, librdkafka's mock cluster (3 brokers); wall ms, median of ${runs} alternated runs [min-max]\n`);
  console.log('| output | kafka-fetch-decoder consume | kcat -C | ours / kcat |');
  console.log('| --- | --- | --- | --- |');
  for (const [label, ours, kcat] of pairs) {
    const times = { ours: [], kcat: [] };
    for (let i = 0; i < runs + 1; i++) {
      for (const [who, cmd, argv] of [['ours', process.execPath, [cli, ...ours]], ['kcat', 'kcat', kcat]]) {
        const r = await timed(cmd, argv);
        if (r.lines !== records) throw new Error(`${who} printed ${r.lines} lines for ${records} records (${label})`);
        if (i > 0) times[who].push(r.ms); // the first round warms the page cache and the broker
      }
    }
    const [o, k] = [median(times.ours), median(times.kcat)];
    const range = (xs) => `[${Math.round(Math.min(...xs))}-${Math.round(Math.max(...xs))}]`;
    console.log(`| ${label.replaceAll('|', '\\|')} | ${Math.round(o)} ${range(times.ours)} | ${Math.round(k)} ${range(times.kcat)} | ${(o / k).toFixed(2)} |`);
  }
} finally {
  await mock.stop();
}
