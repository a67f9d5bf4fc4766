// The options that say how to reach the brokers, the same for consume, capture, relay and ui:
// bootstrap list, TLS, SASL (the password from the environment only), request timeout.
'use strict';

const fs = require('node:fs');
const { UsageError, parse } = require('./args.cjs');

const brokerUsage = `  --bootstrap HOST:PORT[,HOST:PORT...]   brokers to start from (required)
  --timeout-ms N            how long a broker may take to answer a request (default 30000); one
                            that stops answering fails the command after about twice this
  --connect-retry-ms N      keep trying for up to N ms to reach a cluster that does not answer yet
                            (a broker still starting); default 0: fail at once
  --tls                     connect with TLS (system CAs, or --ca)
  --ca FILE                 a PEM file of CA certificates to trust (implies --tls)
  --sasl-mechanism M        plain, scram-sha-256 or scram-sha-512, with --sasl-username; the
                            password comes from the environment variable KAFKA_SASL_PASSWORD
  --sasl-username U`;

const brokerOptions = {
  '--bootstrap': { value: 'HOST:PORT' },
  '--timeout-ms': { value: 'N', parse: parse.integer(1, 2 ** 31 - 1) },
  '--connect-retry-ms': { value: 'N', parse: parse.integer(0, 2 ** 31 - 1) },
  '--tls': {},
  '--ca': { value: 'FILE' },
  '--sasl-mechanism': { value: 'M', parse: parse.oneOf('plain', 'scram-sha-256', 'scram-sha-512') },
  '--sasl-username': { value: 'U' },
  '--help': {},
};

/** KafkaClient options from the parsed command line. */
function clientOptions(o) {
  if (!o.bootstrap) throw new UsageError('--bootstrap HOST:PORT is required');
  const options = { bootstrap: o.bootstrap, requestTimeoutMs: o.timeoutMs ?? 30_000, connectRetryMs: o.connectRetryMs ?? 0 };
  if (o.tls || o.ca) {
    options.tls = {};
    if (o.ca) {
      try {
        options.tls.ca = fs.readFileSync(o.ca);
      } catch (e) {
        throw new UsageError(`--ca ${o.ca}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
      }
    }
  }
  if (o.saslMechanism || o.saslUsername) {
    if (!o.saslMechanism || !o.saslUsername) throw new UsageError('--sasl-mechanism and --sasl-username go together');
    const password = process.env.KAFKA_SASL_PASSWORD;
    if (password === undefined) throw new UsageError('the SASL password is read from the environment variable KAFKA_SASL_PASSWORD, which is not set');
    options.sasl = { mechanism: o.saslMechanism, username: o.saslUsername, password };
  }
  return options;
}

module.exports = { brokerOptions, brokerUsage, clientOptions };
