// The cluster beside the records, read-only: its brokers (DescribeCluster where offered, as the
// admin client reads them, else Metadata) and the configuration of a topic or a broker
// (DescribeConfigs: each entry's value, where it comes from and what it falls back to). Kafka's
// names of sources and types come from the Rust core.
//
// `admin` is what KafkaClient lends these functions (client.mjs).

import { KafkaClientError } from './errors.mjs';
import { encode } from './protocol.mjs';

/**
 * { clusterId, controllerId, brokers: [{ nodeId, host, port, rack }] (by id), via: 'DescribeCluster'
 * | 'Metadata' }.
 */
export async function brokers(admin, signal) {
  try {
    const { connection, version, frame } = await admin.anyBroker('DescribeCluster', (v, id) => encode.describeCluster(v, id, admin.options.clientId), signal);
    const answer = connection.decode('DescribeCluster', version, frame);
    if (answer.errorCode) throw connection.brokerError(`DescribeCluster${answer.errorMessage ? ` (${answer.errorMessage})` : ''}`, answer.errorCode);
    return {
      clusterId: answer.clusterId,
      controllerId: answer.controllerId,
      brokers: answer.brokers.map((b) => ({ nodeId: b.brokerId, host: b.host, port: b.port, rack: b.rack })).sort((a, b) => a.nodeId - b.nodeId),
      via: 'DescribeCluster',
    };
  } catch (e) {
    if (!(e instanceof KafkaClientError && e.code === 'UNSUPPORTED_VERSION')) throw e;
  }
  const md = await admin.metadata([], signal);
  return { clusterId: md.clusterId, controllerId: md.controllerId, brokers: md.brokers.sort((a, b) => a.nodeId - b.nodeId), via: 'Metadata' };
}

const TOPIC = 2;
const BROKER = 4;

/**
 * The configuration of `topic` or of broker `broker` (its node id; asked of that broker, as Kafka
 * answers only its own): { resourceType, resourceName, configs: [{ name, value, source, isDefault,
 * isSensitive, readOnly, type, documentation, synonyms: [{ name, value, source }] }] } in the
 * broker's order; `source` and `type` are Kafka's names ('DYNAMIC_TOPIC_CONFIG', 'LONG', ...), a
 * sensitive value null. `synonyms`, `documentation`: ask for them (documentation from v3).
 * @param {import('./groups.mjs').Admin} admin
 * @param {{ topic?: string, broker?: number | string, synonyms?: boolean, documentation?: boolean, signal?: AbortSignal }} resource
 */
export async function describeConfigs(admin, { topic, broker, synonyms = false, documentation = false, signal }) {
  if ((topic === undefined) === (broker === undefined)) throw new KafkaClientError('INVALID_ARGUMENT', 'configs: give topic or broker (one of them)');
  const resource = topic !== undefined ? { type: TOPIC, name: String(topic) } : { type: BROKER, name: String(broker) };
  const build = (v, id) => encode.describeConfigs(v, id, admin.options.clientId, { resources: [resource], synonyms, documentation });
  return admin.withRetries(
    `DescribeConfigs ${resource.name}`,
    async () => {
      let answered;
      if (resource.type === BROKER) {
        const { brokers: known } = await admin.metadata([], signal);
        const node = known.find((b) => String(b.nodeId) === resource.name);
        if (!node)
          throw new KafkaClientError(
            'INVALID_ARGUMENT',
            `configs: no broker ${resource.name} in the cluster (brokers ${known.map((b) => b.nodeId).join(', ')})`,
          );
        const connection = admin.connectionTo(node);
        answered = { connection, ...(await connection.request('DescribeConfigs', build, signal)) };
      } else {
        answered = await admin.anyBroker('DescribeConfigs', build, signal);
      }
      const { connection, version, frame } = answered;
      const [result] = connection.decode('DescribeConfigs', version, frame).results;
      if (result.errorCode) {
        const why = `${result.errorName} (${result.errorCode})${result.errorMessage ? `: ${result.errorMessage}` : ''}`;
        if (result.errorName === 'UNKNOWN_TOPIC_OR_PARTITION')
          throw new KafkaClientError('UNKNOWN_TOPIC', `topic ${resource.name}: ${why} (broker ${connection.name})`, {
            broker: connection.name,
            topic: resource.name,
            errorCode: result.errorCode,
            errorName: result.errorName,
          });
        throw connection.brokerError(`DescribeConfigs ${resource.name}`, result.errorCode);
      }
      return {
        resourceType: result.resourceTypeName,
        resourceName: result.resourceName,
        configs: result.configs.map((c) => ({
          name: c.name,
          value: c.value,
          source: c.sourceName ?? String(c.source),
          isDefault: c.isDefault,
          isSensitive: c.isSensitive,
          readOnly: c.readOnly,
          type: c.configTypeName ?? null,
          documentation: c.documentation ?? null,
          synonyms: c.synonyms.map((s) => ({ name: s.name, value: s.value, source: s.sourceName ?? String(s.source) })),
        })),
      };
    },
    signal,
  );
}
