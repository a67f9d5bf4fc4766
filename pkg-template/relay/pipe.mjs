// One browser's WebSocket to one broker, through the relay. The WebSocket handshake completes
// first and the broker connection is opened after it, so a handshake that fails, or a client that
// leaves while connecting, never costs a broker connection; requests that arrive meanwhile wait,
// bounded. Every message is checked by the Rust core (one read-only request, checkReadRequest) and
// forwarded as it is; the broker's bytes go back as they come, and reading from the broker pauses
// while too much waits for this browser, or for all of them together (BufferBudget).

import { checkReadRequest } from '../client/protocol.mjs';
import { RELAY_CLOSE as CLOSE } from '../client/transport-websocket.mjs';
import { closeReason, printable } from '../printable.mjs';

// the close codes are the client's to read: defined beside its WebSocket transport
export { CLOSE };

/**
 * The bytes all connections hold for their browsers, bounded: once past `max`, every connection
 * with bytes waiting pauses its broker, and all resume when the total is back under three quarters.
 */
export class BufferBudget {
  constructor(max) {
    this.max = max;
    this.total = 0;
    this.paused = new Set();
  }

  get over() {
    return this.total > this.max;
  }

  add(n) {
    this.total += n;
  }

  remove(n) {
    this.total -= n;
    if (this.paused.size && this.total <= this.max * 0.75) {
      for (const resume of [...this.paused]) resume();
    }
  }
}

/**
 * Serves `ws` (open) with a connection to `target` (checked by Targets; null: a bootstrap broker).
 * options: { targets, connectionOptions, from (who, for the log), log, maxRequestBytes,
 * idleTimeoutMs, maxBufferedBytes (per connection), budget (BufferBudget), onEnd() }.
 */
export function relayConnection(ws, target, options) {
  const { targets, connectionOptions, from, log, maxRequestBytes, idleTimeoutMs, maxBufferedBytes, budget, onEnd } = options;
  let broker = null;
  let socket = null; // broker.pipe(): write, pause, resume
  let closed = false;
  let queued = 0; // bytes sent to the browser and not yet written out
  let paused = false;
  const waiting = []; // requests that came before the broker connection was open
  let waitingBytes = 0;

  const end = (code, reason) => {
    if (closed) return;
    closed = true;
    clearTimeout(idle);
    budget.paused.delete(resume);
    budget.remove(queued);
    queued = 0;
    waiting.length = 0;
    broker?.close();
    if (ws.readyState === ws.OPEN) ws.close(code, closeReason(reason));
    else ws.terminate();
    onEnd();
  };
  const idle = setTimeout(() => end(CLOSE.IDLE, `idle for ${idleTimeoutMs / 1000} s`), idleTimeoutMs);

  function resume() {
    if (!paused || queued > maxBufferedBytes / 4 || budget.total > budget.max * 0.75) return;
    paused = false;
    budget.paused.delete(resume);
    socket?.resume();
  }

  const toBrowser = (chunk) => {
    idle.refresh();
    const n = chunk.length;
    queued += n;
    budget.add(n);
    ws.send(chunk, () => {
      if (closed) return;
      queued -= n;
      budget.remove(n);
      resume();
    });
    if (!paused && (queued > maxBufferedBytes || budget.over)) {
      paused = true;
      budget.paused.add(resume);
      socket.pause();
    }
  };

  ws.on('message', (data, isBinary) => {
    if (closed) return;
    idle.refresh();
    if (!isBinary) return end(CLOSE.BAD_REQUEST, 'the relay takes binary messages only');
    const message = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const size = message.length >= 4 ? new DataView(data.buffer, data.byteOffset, 4).getUint32(0) : 0;
    if (size > maxRequestBytes) {
      log(`closed ${from}: a request frame of ${size} bytes, over the ${maxRequestBytes}-byte bound`);
      return end(CLOSE.FRAME_TOO_LARGE, `request frame too large: ${size} bytes, over the ${maxRequestBytes}-byte bound`);
    }
    // one whole request per message, as the client writes them: forwarded as it is (size prefix
    // included) only when it only reads
    const check = checkReadRequest(message);
    if (!check.allowed) {
      log(`refused ${from}: ${printable(check.reason, 300)}; connection closed`);
      return end(CLOSE.NOT_READ_ONLY, `refused: ${check.reason} (the relay is read-only)`);
    }
    if (socket) return socket.write(message);
    waitingBytes += message.length;
    if (waitingBytes > 4 * maxRequestBytes) return end(CLOSE.FRAME_TOO_LARGE, 'too many requests before the broker connection opened');
    waiting.push(message);
  });
  ws.on('close', () => end(1000, ''));
  ws.on('error', () => end(1011, ''));

  targets.connect(target, connectionOptions).then(
    (connection) => {
      broker = connection;
      if (closed) return connection.close();
      socket = connection.pipe(toBrowser, (error) =>
        end(CLOSE.BROKER_CLOSED, `broker ${connection.name} closed the connection${error ? `: ${error.message}` : ''}`),
      );
      for (const message of waiting.splice(0)) socket.write(message);
    },
    (e) => {
      if (closed) return;
      log(`${from}: ${printable(e.message, 300)}`);
      // the reason a page sees names no credentials and repeats no broker's text about them
      const reason = e.code === 'AUTHENTICATION' ? `the relay could not authenticate to ${e.broker ?? 'the broker'} (its log says why)` : e.message;
      end(CLOSE.BROKER_UNREACHABLE, reason);
    },
  );
}
