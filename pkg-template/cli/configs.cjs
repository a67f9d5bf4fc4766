// `kafka-fetch-decoder configs --topic T | --broker N` prints a topic's or a broker's configuration
// (DescribeConfigs, through KafkaClient.configs): the values set somewhere first, then the defaults,
// each with where it comes from, as Kafka names the source.
'use strict';

const { KafkaClient, KafkaClientError } = require('../node.cjs');
const { UsageError, parseArgs, parse } = require('./args.cjs');
const { brokerOptions, brokerUsage, clientOptions } = require('./brokers.cjs');
const { alignedTable, jsonText } = require('./output.cjs');

const configsUsage = `kafka-fetch-decoder configs --bootstrap HOST:PORT (--topic NAME | --broker N) [options]
  Prints the configuration of a topic or of a broker (asked of that broker): NAME, VALUE, SOURCE
  (DYNAMIC_TOPIC_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG, ...), the values that are not
  defaults first, each part by name; a sensitive value is not shown.
${brokerUsage}
  --topic NAME              this topic's configuration
  --broker N                the configuration of broker N (its node id)
  --synonyms                each entry's synonyms too (what it falls back to)
  --json                    one JSON document ({"resourceType", "resourceName", "configs": [{"name",
                            "value", "source", "isDefault", "isSensitive", "readOnly", "type",
                            "documentation", "synonyms"}]}, in the same order)`;

const spec = {
  ...brokerOptions,
  '--topic': { value: 'NAME' },
  '--broker': { value: 'N', parse: parse.integer(0, 2 ** 31 - 1) },
  '--synonyms': {},
  '--json': {},
};

/** The entries set somewhere first, then the defaults; each part by name. */
const ordered = (configs) => [...configs].sort((a, b) => Number(a.isDefault) - Number(b.isDefault) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** Runs configs; resolves with the exit code. */
async function run(argv, out = process.stdout, err = process.stderr) {
  const { options: o } = parseArgs(argv, spec, []);
  if (o.help) {
    out.write(`${configsUsage}\n`);
    return 0;
  }
  if ((o.topic === undefined) === (o.broker === undefined)) throw new UsageError('give --topic NAME or --broker N (one of them)');
  const client = new KafkaClient({ ...clientOptions(o), retries: 2 });
  let described;
  try {
    described = await client.configs({ topic: o.topic, broker: o.broker, synonyms: Boolean(o.synonyms) });
  } catch (e) {
    if (!(e instanceof KafkaClientError) || e.code === 'INVALID_ARGUMENT') throw e;
    err.write(`kafka-fetch-decoder: configs: ${e.message}\n`);
    return 1;
  } finally {
    client.close();
  }
  const configs = ordered(described.configs);
  if (o.json) {
    out.write(`${jsonText({ ...described, configs }, 2)}\n`);
    return 0;
  }
  const what = described.resourceType === 'BROKER' ? `broker ${described.resourceName}` : `topic ${described.resourceName}`;
  const rows = configs.map((c) => [
    c.name,
    c.isSensitive ? '(sensitive)' : c.value,
    c.source,
    ...(o.synonyms ? [c.synonyms.map((s) => `${s.source}:${s.name}=${s.value ?? ''}`).join(', ') || null] : []),
  ]);
  out.write(
    configs.length
      ? `Configuration of ${what}:\n${alignedTable(['NAME', 'VALUE', 'SOURCE', ...(o.synonyms ? ['SYNONYMS'] : [])], rows)}\n`
      : `Configuration of ${what}: the broker lists no entry.\n`,
  );
  return 0;
}

module.exports = { run, configsUsage };
