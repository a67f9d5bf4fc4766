// Kafka's facts as the package offers them, read from the wasm module (src/js/contract.rs writes
// them from the tables of the Rust core): nothing of them is written down in JS.

import { errorNameOf, kafkaFacts } from './contract.mjs';
import { requireWasm } from './engine.mjs';

/** The name of a Kafka error code ('NOT_LEADER_OR_FOLLOWER' for 6), from Kafka's error table. */
export function errorName(code) {
  requireWasm();
  return errorNameOf(code);
}

/**
 * What this build knows of Kafka's protocol: { fetchResponseVersions: { min, max } (the
 * FetchResponse versions it decodes), apis: [{ apiKey, api, minVersion, maxVersion,
 * firstFlexibleVersion, read }] (those the client speaks; `read`: the relay forwards it), apiNames
 * (Kafka's request names by api key), errorNames ({ code: name }) }. A copy: changing it changes nothing.
 */
export function protocolInfo() {
  requireWasm();
  return structuredClone(kafkaFacts());
}

/** The api key of one of the apis the client speaks, by Kafka's name ('Fetch' -> 1). */
export function apiKeyOf(name) {
  const api = kafkaFacts().apis.find((a) => a.api === name);
  if (!api) throw new Error(`kafka-fetch-decoder: the client speaks no api named ${name}`);
  return api.apiKey;
}

/** Kafka's name of an api key ('Produce' for 0), or `api key N` for a key Kafka does not define. */
export function apiNameOf(key) {
  return kafkaFacts().apiNames[key] ?? `api key ${key}`;
}
