#!/usr/bin/env node
// kafka-fetch-decoder: the package's command line. `kafka-fetch-decoder --help` lists the commands.
// A user error (a bad argument, a missing file) is one line on stderr and exit code 2; a problem in
// the data is exit code 1; never a stack trace for either.
'use strict';

const { RunError, UsageError } = require('./cli/args.cjs');

const COMMANDS = {
  decode: () => require('./cli/decode.cjs'),
  consume: () => ({ run: (argv) => require('./cli/consume.cjs').run('consume', argv) }),
  capture: () => ({ run: (argv) => require('./cli/consume.cjs').run('capture', argv) }),
  scan: () => require('./cli/scan.cjs'),
  metadata: () => require('./cli/metadata.cjs'),
  offsets: () => require('./cli/offsets.cjs'),
  groups: () => ({ run: (argv) => require('./cli/groups.cjs').runGroups(argv) }),
  group: () => ({ run: (argv) => require('./cli/groups.cjs').runGroup(argv) }),
  configs: () => require('./cli/configs.cjs'),
  relay: () => ({ run: (argv) => require('./cli/serve.cjs').run('relay', argv) }),
  ui: () => ({ run: (argv) => require('./cli/serve.cjs').run('ui', argv) }),
};

const HELP = `usage: kafka-fetch-decoder <command> [options]   (kafka-fetch-decoder <command> --help for more)

commands:
  decode [FILE]     decode a FetchResponse capture or a log segment and print its records
                    (the default command: \`kafka-fetch-decoder FILE\` is \`decode FILE\`)
  consume           print the records of live topics (a table, JSON lines, CSV, Arrow or a format string)
  scan              search whole topics on every core: filters, aggregates, coverage and resume,
                    plans run in shards across machines, Parquet for DuckDB, Spark and pandas
  capture           write a live topic's fetch responses to files, to decode again later
  metadata          list the cluster: brokers, controller, topics, partitions, leaders, replicas
  offsets           each partition's earliest, latest or first offset at a time
  groups            the consumer groups: state, protocol, members, total lag
  group GROUP       one group as kafka-consumer-groups.sh --describe shows it; --max-lag N for scripts
  configs           a topic's or a broker's configuration
  ui                serve the inspection page and a relay: a live inspector in the browser
  relay             a read-only WebSocket relay through which browsers reach the brokers
  help              this text (also --help); --version prints the package's version

${require('./cli/decode.cjs').usage}

${require('./cli/consume.cjs').consumeUsage}

${require('./cli/scan.cjs').scanUsage}

${require('./cli/consume.cjs').captureUsage}

${require('./cli/metadata.cjs').metadataUsage}

${require('./cli/offsets.cjs').offsetsUsage}

${require('./cli/groups.cjs').groupsUsage}

${require('./cli/groups.cjs').groupUsage}

${require('./cli/configs.cjs').configsUsage}

${require('./cli/serve.cjs').uiUsage}

${require('./cli/serve.cjs').relayUsage}`;

async function main(argv) {
  const first = argv[0];
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    if (first === undefined) return COMMANDS.decode().run([]);
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    process.stdout.write(`${require('./package.json').version}\n`);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, first) ? first : 'decode';
  const args = command === first ? argv.slice(1) : argv;
  return COMMANDS[command]().run(args);
}

// `kafka-fetch-decoder FILE | head`: a reader that stops early is not an error; any other failure
// to write (a full disk) is one line
process.stdout.on('error', (/** @type {NodeJS.ErrnoException} */ e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  process.stderr.write(`kafka-fetch-decoder: cannot write the output: ${e.code ?? e.message}\n`);
  process.exit(1);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    // the client's INVALID_ARGUMENT comes from what the command line gave it (a broker address)
    if (e instanceof UsageError || (e?.name === 'KafkaClientError' && e.code === 'INVALID_ARGUMENT')) {
      process.stderr.write(`kafka-fetch-decoder: ${e.message}\n`);
      process.exitCode = 2;
    } else if (e instanceof RunError || e?.code === 'WS_MISSING') {
      process.stderr.write(`kafka-fetch-decoder: ${e.message}\n`);
      process.exitCode = 1;
    } else {
      // a bug: still one line, with a way to see more
      process.stderr.write(`kafka-fetch-decoder: internal error: ${require('./lib.cjs').printable(e?.message ?? e)} (set NODE_DEBUG_KFD=1 for the stack)\n`);
      if (process.env.NODE_DEBUG_KFD) process.stderr.write(`${e?.stack}\n`);
      process.exitCode = 70;
    }
  },
);
