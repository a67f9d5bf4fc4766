// One connection to one broker: the transport (TCP, TLS or a WebSocket to the relay), frames,
// correlation ids and timeouts, then on opening: ApiVersions (the versions both sides support) and
// SASL when configured. Requests are written at once; Kafka answers in order, but responses are
// matched by correlation id all the same. The opening is bounded by connectTimeoutMs (a peer that
// is silent, or answers HTTP or TLS, is said not to be a Kafka broker); a response that does not
// decode is a PROTOCOL error naming the broker and the request.

import { errorName, KafkaDecodeError } from '../api.mjs';
import { addressName } from './address.mjs';
import { abortable, onAbort, reasonOf } from './abort.mjs';
import { KafkaClientError } from './errors.mjs';
import { FrameSplitter } from './frames.mjs';
import { decodeResponse, encode, negotiate } from './protocol.mjs';
import { authenticate } from './sasl.mjs';

const API_VERSIONS_VERSION = 3;

export class BrokerConnection {
  /**
   * `address`: { host, port, nodeId }; `options`: { transport, clientId, tls, sasl, requestTimeoutMs,
   * connectTimeoutMs, maxFrameBytes }.
   */
  constructor(address, options) {
    this.address = address;
    this.name = addressName(address);
    this.options = options;
    this.socket = null;
    this.splitter = null;
    this.pending = new Map();
    this.nextCorrelationId = 1;
    this.versions = null;
    this.closed = false;
    this.opening = null;
    this.ready = false; // connected, versions negotiated, authenticated
    this.everReady = false;
    this.piped = null; // { onBytes, onClose } once handed to a byte pipe (the relay)
    this.answered = false;
  }

  /** Connects, negotiates versions and authenticates (once; later calls share the same promise). */
  open() {
    this.opening ??= this.#open().catch((e) => {
      this.#drop(e); // the next request tries again on a fresh socket
      throw e;
    });
    return this.opening;
  }

  async #open() {
    await this.#connect();
    let answer = null;
    try {
      answer = await this.#apiVersions(API_VERSIONS_VERSION);
    } catch (e) {
      // A broker that does not speak this version answers UNSUPPORTED_VERSION in v0 form, in a
      // form that does not decode at all (librdkafka's mock), or closes the connection (Tansu):
      // ask again in v0, which every broker speaks, as librdkafka does.
      if (e instanceof KafkaClientError && e.code === 'CONNECTION') await this.#connect();
      else if (!(e instanceof KafkaClientError && e.code === 'PROTOCOL')) throw e;
    }
    if (answer === null || answer.errorCode === 35) {
      try {
        answer = await this.#apiVersions(0);
      } catch (e) {
        // closed again, at the version every broker speaks: no Kafka broker does that (a TLS port
        // given a plain connection often closes without a word)
        const closedSilently = e instanceof KafkaClientError && e.code === 'CONNECTION' && e.message.startsWith(`broker ${this.name} closed`) && !this.answered;
        if (!closedSilently || this.options.tls) throw e;
        throw new KafkaClientError(
          'NOT_KAFKA',
          `${this.name} is not a Kafka broker, or it expects TLS: it closed the connection at ApiVersions v0 without a word (with TLS: --tls, or the option tls)`,
          { broker: this.name, cause: e },
        );
      }
    }
    if (answer.errorCode !== 0) throw this.brokerError(`ApiVersions failed`, answer.errorCode);
    this.versions = negotiate(answer.apiKeys);
    for (const api of ['Metadata', 'ListOffsets', 'Fetch']) {
      if (this.versions[api] == null) {
        throw new KafkaClientError('UNSUPPORTED_VERSION', `broker ${this.name} supports no version of ${api} this client speaks`, { broker: this.name });
      }
    }
    if (this.options.sasl) await this.#authenticate(this.options.sasl);
    this.ready = true;
    this.everReady = true;
  }

  async #connect() {
    this.socket?.close();
    const { transport, tls, connectTimeoutMs, maxFrameBytes } = this.options;
    let socket;
    try {
      socket = await transport.connect({ ...this.address, tls, timeoutMs: connectTimeoutMs });
    } catch (e) {
      // a certificate that is not trusted stays so, and so does a relay's refusal: not a connection to try again
      const code = /CERT|SELF_SIGNED|ALTNAME|UNABLE_TO_VERIFY/.test(e?.code ?? '') ? 'TLS' : (e?.clientCode ?? 'CONNECTION');
      // through a relay, the bootstrap "broker" is a name, not an address: "the relay's bootstrap broker"
      const target = this.address.port ? `broker ${this.name}` : this.name;
      throw new KafkaClientError(code, `cannot connect to ${target}: ${socketErrorText(e)}`, { broker: this.name, cause: e });
    }
    this.socket = socket;
    this.splitter = new FrameSplitter({ maxFrameBytes });
    this.answered = false; // the peer sent a byte on this socket
    socket.onData((chunk) => this.#onData(chunk));
    socket.onClose((error) => {
      if (this.piped) this.piped.onClose(error);
      if (this.socket !== socket) return;
      // a relay that refused says why; that is the message
      const message = error?.message?.startsWith('relay: ')
        ? error.message.includes(this.name)
          ? error.message
          : `${error.message} (to ${this.name})`
        : `broker ${this.name} closed the connection${error ? `: ${error.message ?? error}` : ''}`;
      this.#failAll(new KafkaClientError(error?.clientCode ?? 'CONNECTION', message, { broker: this.name, cause: error }));
      this.socket = null;
      this.opening = null; // the next request reconnects
      this.versions = null;
      this.ready = false;
    });
  }

  // the first request of a connection: bounded as its opening is, and said plainly when it fails
  async #apiVersions(version) {
    const frame = await this.#send('ApiVersions', version, (v, id) => encode.apiVersions(v, id, this.options.clientId), this.options.connectTimeoutMs);
    return this.decode('ApiVersions', version, frame);
  }

  async #authenticate({ mechanism, username, password }) {
    const handshakeVersion = Math.min(this.versions.SaslHandshake ?? 1, 1);
    if (this.versions.SaslAuthenticate == null) {
      throw new KafkaClientError('AUTHENTICATION', `broker ${this.name} does not offer SaslAuthenticate`, { broker: this.name });
    }
    const hs = this.decode(
      'SaslHandshake',
      handshakeVersion,
      await this.#send('SaslHandshake', handshakeVersion, (v, id) => encode.saslHandshake(v, id, this.options.clientId, mechanism)),
    );
    if (hs.errorCode !== 0) {
      const offered = hs.mechanisms?.length ? ` (it offers ${hs.mechanisms.join(', ')})` : '';
      throw new KafkaClientError('AUTHENTICATION', `broker ${this.name} refused SASL mechanism ${mechanism}${offered}: ${hs.errorName}`, {
        broker: this.name,
        errorCode: hs.errorCode,
        errorName: hs.errorName,
      });
    }
    const version = this.versions.SaslAuthenticate;
    await authenticate(mechanism, { username, password }, async (bytes) => {
      const answer = this.decode(
        'SaslAuthenticate',
        version,
        await this.#send('SaslAuthenticate', version, (v, id) => encode.saslAuthenticate(v, id, this.options.clientId, bytes)),
      );
      if (answer.errorCode !== 0) {
        throw new KafkaClientError(
          'AUTHENTICATION',
          `authentication of ${username} at broker ${this.name} failed: ${answer.errorMessage ?? answer.errorName}`,
          { broker: this.name, errorCode: answer.errorCode, errorName: answer.errorName },
        );
      }
      return Uint8Array.from(atob(answer.authBytes ?? ''), (c) => c.charCodeAt(0));
    });
  }

  /**
   * Sends one request of `api` ('Fetch', ...) and resolves with its response frame.
   * `build(version, correlationId)` encodes it at the negotiated version.
   */
  async request(api, build, signal) {
    // Once open, the request is written before this returns (no await first): a consumer that asks
    // for its next fetch before decoding the last one has the broker working while it decodes.
    if (!this.ready) await abortable(this.open(), signal);
    const version = this.versions[api];
    if (version == null) {
      throw new KafkaClientError('UNSUPPORTED_VERSION', `broker ${this.name} offers no version of ${api} this client speaks`, { broker: this.name });
    }
    return { version, frame: await this.#send(api, version, build, this.options.requestTimeoutMs, signal) };
  }

  /** A response of `api` decoded (protocol.mjs); bytes that do not decode are a PROTOCOL error naming this broker. */
  decode(api, version, frame) {
    try {
      return decodeResponse(api, version, frame);
    } catch (e) {
      if (!(e instanceof KafkaDecodeError)) throw e;
      throw new KafkaClientError(
        'PROTOCOL',
        `broker ${this.name} answered ${api} v${version} with bytes that do not decode (${e.code} at byte ${e.offset}): ${e.message}`,
        { broker: this.name, cause: e },
      );
    }
  }

  #send(api, version, build, timeoutMs = this.options.requestTimeoutMs, signal = undefined) {
    if (this.closed) return Promise.reject(new KafkaClientError('CLOSED', 'the client was closed', { broker: this.name }));
    if (!this.socket) return Promise.reject(new KafkaClientError('CONNECTION', `not connected to broker ${this.name}`, { broker: this.name }));
    if (signal?.aborted) return Promise.reject(reasonOf(signal));
    const id = this.nextCorrelationId;
    this.nextCorrelationId = id === 0x7fffffff ? 1 : id + 1;
    const frame = build(version, id);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        stop();
        // silence at the opening of a peer never heard from: no Kafka broker lets ApiVersions go
        // unanswered for this long (one that answered before may just be stuck)
        const error =
          this.ready || this.everReady
            ? new KafkaClientError('TIMEOUT', `broker ${this.name} did not answer ${api} within ${timeoutMs} ms`, { broker: this.name })
            : new KafkaClientError('TIMEOUT', `${this.name} is not a Kafka broker, or not ready: no answer to ${api} within ${timeoutMs} ms`, {
                broker: this.name,
              });
        reject(error);
        // a late answer could not be told from the next one: start over on a fresh connection
        this.#drop(error);
      }, timeoutMs);
      // an abort forgets the request: its answer, when it comes, is skipped by its correlation id
      const stop = onAbort(signal, (reason) => {
        if (!this.pending.delete(id)) return;
        clearTimeout(timer);
        reject(reason);
        this.#idle();
      });
      this.pending.set(id, { resolve, reject, timer, stop });
      // a socket with a request in flight keeps the process alive, an idle one does not
      this.socket.ref?.();
      this.socket.write(frame);
    });
  }

  /** Lets the process exit while nothing is asked of this connection (a client not closed does not hold it). */
  #idle() {
    if (this.pending.size === 0) this.socket?.unref?.();
  }

  #onData(chunk) {
    if (this.piped) {
      // a copy: the transport reuses its read buffer
      this.piped.onBytes(Uint8Array.prototype.slice.call(chunk));
      return;
    }
    // the first bytes of a peer that is not Kafka (a web server, a TLS port) say what it is
    const stranger = this.ready || this.splitter.pending || this.answered ? null : strangerIn(chunk);
    if (stranger) {
      this.#drop(new KafkaClientError('NOT_KAFKA', `${this.name} is not a Kafka broker: it answered ${stranger}`, { broker: this.name }));
      return;
    }
    this.answered = true;
    let frames;
    try {
      frames = this.splitter.push(chunk);
    } catch (e) {
      this.#drop(e instanceof KafkaClientError ? new KafkaClientError(e.code, `broker ${this.name}: ${e.message}`, { broker: this.name }) : e);
      return;
    }
    for (const frame of frames) {
      if (frame.length < 4) continue;
      const id = (frame[0] << 24) | (frame[1] << 16) | (frame[2] << 8) | frame[3] | 0;
      const waiting = this.pending.get(id);
      if (!waiting) continue; // an answer to a request that timed out or was aborted
      this.pending.delete(id);
      clearTimeout(waiting.timer);
      waiting.stop();
      waiting.resolve(frame);
    }
    this.#idle();
  }

  #failAll(error) {
    for (const { reject, timer, stop } of this.pending.values()) {
      clearTimeout(timer);
      stop();
      reject(error);
    }
    this.pending.clear();
  }

  /** Fails what is in flight and drops the socket; the next request reconnects. */
  #drop(error) {
    this.#failAll(error);
    const socket = this.socket;
    this.socket = null;
    this.opening = null;
    this.versions = null;
    this.ready = false;
    socket?.close();
  }

  /**
   * Hands the opened connection (versions negotiated, SASL done) to a byte pipe, as the relay does:
   * from now on the broker's bytes go to `onBytes` as they arrive, `onClose(error?)` is called once
   * the socket closes, and the returned object writes bytes unchanged and pauses or resumes reading.
   */
  pipe(onBytes, onClose) {
    if (!this.socket || this.pending.size) throw new Error('pipe() needs an open connection with nothing in flight');
    this.piped = { onBytes, onClose };
    const socket = this.socket;
    return {
      write: (bytes) => socket.write(bytes),
      pause: () => socket.pause?.(),
      resume: () => socket.resume?.(),
      close: () => this.close(),
    };
  }

  /** A broker's error code as a KafkaClientError. */
  brokerError(what, errorCode, extra = {}) {
    const name = errorNameOf(errorCode);
    return new KafkaClientError('BROKER_ERROR', `${what} at broker ${this.name}: ${name} (${errorCode})`, {
      broker: this.name,
      errorCode,
      errorName: name,
      ...extra,
    });
  }

  close(error) {
    this.closed = true;
    this.#drop(error ?? new KafkaClientError('CLOSED', 'the client was closed', { broker: this.name }));
  }
}

/**
 * What the first bytes a peer sent say it is when it is not Kafka (a Kafka response starts with a
 * size far below these): an HTTP server, or a TLS one answering a plain connection; else null.
 */
function strangerIn(chunk) {
  if (chunk.length >= 5 && String.fromCharCode(...chunk.subarray(0, 5)) === 'HTTP/') return 'HTTP (a web server; is this the right port?)';
  if (chunk.length >= 2 && (chunk[0] === 0x15 || chunk[0] === 0x16) && chunk[1] === 0x03) return 'with TLS (use --tls, or the option tls)';
  return null;
}

/** Kafka's name of an error code. */
export const errorNameOf = (code) => errorName(code);

// Node's connect errors repeat the address the message already names ("connect ECONNREFUSED
// 127.0.0.1:9092"): the well-known ones are said in words, with their code.
const SOCKET_ERRORS = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed (temporary)',
};

function socketErrorText(e) {
  const words = SOCKET_ERRORS[e?.code];
  return words ? `${words} (${e.code})` : String(e?.message ?? e);
}
