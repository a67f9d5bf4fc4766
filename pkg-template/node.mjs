// Node entry (ES module): the same single instance as the CommonJS entry.
import api from './node.cjs';

export const {
  decodeFetchResponse, decodeRecordSet, errorName, FetchDecoder, FrameSplitter, fromTransferable, KafkaClient,
  KafkaClientError, KafkaDecodeError, KafkaRecord, scramClient, startRelay, toTransferable, wasmMemory, init,
} = api;
export default init;
