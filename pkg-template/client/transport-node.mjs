// How the client reaches brokers in Node: a TCP socket, or TLS (node:tls) when the client has a `tls`
// option. Every transport gives the connection the same small interface: write(bytes), close(),
// onData(fn), onClose(fn(error?)); sockets can also pause() and resume() reading (the relay's
// back-pressure).

import net from 'node:net';
import tls from 'node:tls';

/** Connects to `host:port`; resolves once the connection (and the TLS handshake) is up. */
function connect({ host, port, tls: tlsOptions, timeoutMs }) {
  return new Promise((resolve, reject) => {
    const secure = tlsOptions != null;
    const socket = secure
      ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ...tlsOptions })
      : net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no connection within ${timeoutMs} ms`));
    }, timeoutMs);
    const fail = (e) => {
      clearTimeout(timer);
      socket.destroy();
      reject(e);
    };
    socket.once('error', fail);
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.off('error', fail);
      socket.setNoDelay(true);
      let lastError = null;
      socket.on('error', (e) => {
        lastError = e;
      });
      resolve({
        write: (bytes) => socket.write(bytes),
        close: () => socket.destroy(),
        pause: () => socket.pause(),
        resume: () => socket.resume(),
        onData: (fn) => socket.on('data', fn),
        onClose: (fn) => socket.on('close', () => fn(lastError)),
      });
    });
  });
}

export const nodeTransport = { connect };
