// Kafka names the page shows next to raw numbers.

// Error codes a FetchResponse can carry (top level or per partition), plus the common neighbours,
// as named by the Kafka protocol documentation.
const ERROR_NAMES = new Map([
  [-1, 'UNKNOWN_SERVER_ERROR'],
  [0, 'NONE'],
  [1, 'OFFSET_OUT_OF_RANGE'],
  [2, 'CORRUPT_MESSAGE'],
  [3, 'UNKNOWN_TOPIC_OR_PARTITION'],
  [4, 'INVALID_FETCH_SIZE'],
  [5, 'LEADER_NOT_AVAILABLE'],
  [6, 'NOT_LEADER_OR_FOLLOWER'],
  [7, 'REQUEST_TIMED_OUT'],
  [8, 'BROKER_NOT_AVAILABLE'],
  [9, 'REPLICA_NOT_AVAILABLE'],
  [10, 'MESSAGE_TOO_LARGE'],
  [13, 'NETWORK_EXCEPTION'],
  [17, 'INVALID_TOPIC_EXCEPTION'],
  [29, 'TOPIC_AUTHORIZATION_FAILED'],
  [31, 'CLUSTER_AUTHORIZATION_FAILED'],
  [35, 'UNSUPPORTED_VERSION'],
  [42, 'INVALID_REQUEST'],
  [43, 'UNSUPPORTED_FOR_MESSAGE_FORMAT'],
  [56, 'KAFKA_STORAGE_ERROR'],
  [57, 'LOG_DIR_NOT_FOUND'],
  [59, 'UNKNOWN_PRODUCER_ID'],
  [70, 'FETCH_SESSION_ID_NOT_FOUND'],
  [71, 'INVALID_FETCH_SESSION_EPOCH'],
  [74, 'FENCED_LEADER_EPOCH'],
  [75, 'UNKNOWN_LEADER_EPOCH'],
  [76, 'UNSUPPORTED_COMPRESSION_TYPE'],
  [78, 'OFFSET_NOT_AVAILABLE'],
  [89, 'THROTTLING_QUOTA_EXCEEDED'],
  [100, 'UNKNOWN_TOPIC_ID'],
  [103, 'INCONSISTENT_TOPIC_ID'],
  [106, 'FETCH_SESSION_TOPIC_ID_ERROR'],
  [107, 'INELIGIBLE_REPLICA'],
  [108, 'NEW_LEADER_ELECTED'],
  [109, 'OFFSET_MOVED_TO_TIERED_STORAGE'],
]);

/** "NOT_LEADER_OR_FOLLOWER (6)"; unknown codes keep their number. */
export function errorLabel(code) {
  if (code == null) return '—';
  const n = Number(code);
  return `${ERROR_NAMES.get(n) ?? 'UNKNOWN_CODE'} (${n})`;
}

export const TIMESTAMP_TYPE_SHORT = {
  CREATE_TIME: 'create',
  LOG_APPEND_TIME: 'append',
  NO_TIMESTAMP: 'none',
};

export const FETCH_API_VERSIONS = Array.from({ length: 19 }, (_, v) => v);
export const DEFAULT_API_VERSION = 12;
