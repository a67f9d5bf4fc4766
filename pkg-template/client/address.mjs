// Broker addresses: 'host:port' text (IPv6 hosts in brackets) and { host, port } objects.

import { KafkaClientError } from './errors.mjs';

/** 'host:port' -> { host, port }; a scheme, a missing port or an unbracketed IPv6 host is refused here, before any connection. */
export function parseAddress(text) {
  const given = String(text).trim();
  // 'tcp://host:9092' would otherwise be read as host 'tcp://host' and fail later as "host not found"
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(given);
  if (scheme) {
    throw new KafkaClientError(
      'INVALID_ARGUMENT',
      `a broker address is HOST:PORT without a scheme, got '${text}' (give '${given.slice(scheme[0].length).replace(/\/+$/, '')}')`,
    );
  }
  const m = /^(?:\[([^\]]+)\]|([^:[\]/]+)):(\d+)$/.exec(given);
  if (!m || Number(m[3]) < 1 || Number(m[3]) > 65535) {
    const why = /^[^:]+$/.test(given) ? ' (the port is missing)' : '';
    throw new KafkaClientError('INVALID_ARGUMENT', `a broker address is HOST:PORT, got '${text}'${why}`);
  }
  return { host: m[1] ?? m[2], port: Number(m[3]) };
}

/** { host, port } -> 'host:port'; an address without a port (the relay's bootstrap) is its host text. */
export const addressName = (a) => (a.port ? `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}` : a.host);
