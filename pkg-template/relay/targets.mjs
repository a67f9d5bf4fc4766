// The brokers the relay may connect to: its bootstrap list and the brokers the cluster's latest
// metadata lists. A broker a browser names is checked against metadata at most `maxAgeMs` old, so
// a broker that leaves the cluster stops being a target; the relay's own client asks for it, at
// most once every two seconds.

import { addressName, parseAddress } from '../client/address.mjs';
import { BrokerConnection } from '../client/connection.mjs';
import { KafkaClientError } from '../client/errors.mjs';
import { printable } from '../printable.mjs';

const MIN_REFRESH_INTERVAL_MS = 2000;

export class Targets {
  constructor(bootstrap, client, log, maxAgeMs) {
    this.bootstrap = bootstrap;
    this.bootstrapNames = new Set(bootstrap.map(addressName));
    this.client = client;
    this.log = log;
    this.maxAgeMs = maxAgeMs;
    /** The brokers the latest metadata listed. */
    this.listed = new Set();
    this.refreshing = null;
    this.refreshedAt = 0;
  }

  async #refresh() {
    if (Date.now() - this.refreshedAt < Math.min(MIN_REFRESH_INTERVAL_MS, this.maxAgeMs)) return;
    this.refreshing ??= this.client
      .metadata([])
      .then((md) => {
        this.listed = new Set(md.brokers.map(addressName));
      })
      .catch((e) => this.log(`metadata refresh failed: ${printable(e?.message ?? e, 300)}`))
      .finally(() => {
        this.refreshedAt = Date.now();
        this.refreshing = null;
      });
    await this.refreshing;
  }

  /**
   * The address a browser named (`named`, 'host:port'), if it may be connected to; null for the
   * first bootstrap broker that answers. Opens no connection.
   */
  async check(named) {
    if (named === null) return null;
    const address = parseAddress(named);
    const name = addressName(address);
    if (this.bootstrapNames.has(name)) return address;
    if (!this.listed.has(name) || Date.now() - this.refreshedAt > this.maxAgeMs) await this.#refresh();
    if (!this.listed.has(name)) throw new KafkaClientError('TARGET_REFUSED', `broker ${name} is not in the cluster's metadata`);
    return address;
  }

  /** An open, negotiated (and authenticated) connection to `address`, or to the first bootstrap broker that answers (null). */
  async connect(address, connectionOptions) {
    if (address !== null) {
      const connection = new BrokerConnection(address, connectionOptions);
      try {
        await connection.open();
      } catch (e) {
        connection.close();
        throw e;
      }
      return connection;
    }
    const failures = [];
    for (const candidate of this.bootstrap) {
      const connection = new BrokerConnection(candidate, connectionOptions);
      try {
        await connection.open();
        return connection;
      } catch (e) {
        connection.close();
        failures.push(e);
      }
    }
    // a refused login stays one (the relay tells a page less about it than its log does)
    const refused = failures.find((e) => e.code === 'AUTHENTICATION');
    throw new KafkaClientError(refused ? 'AUTHENTICATION' : 'CONNECTION', `no bootstrap broker answered: ${failures.map((e) => e.message).join('; ')}`, {
      broker: refused?.broker ?? null,
    });
  }

  close() {
    this.client.close();
  }
}
