// Broker addresses: 'host:port' text (IPv6 hosts in brackets) and { host, port } objects.

import { KafkaClientError } from './errors.mjs';

/** 'host:port' -> { host, port }. */
export function parseAddress(text) {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(String(text).trim());
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) throw new KafkaClientError('INVALID_ARGUMENT', `a broker address is HOST:PORT, got '${text}'`);
  return { host: m[1], port: Number(m[2]) };
}

/** { host, port } -> 'host:port'; an address without a port (the relay's bootstrap) is its host text. */
export const addressName = (a) => (a.port ? `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}` : a.host);
