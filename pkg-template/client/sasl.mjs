// SASL for the live client: PLAIN and SCRAM-SHA-256/512 (RFC 5802, RFC 7677), with WebCrypto so the
// same code runs in Node and browsers. `exchange(bytes)` sends one SaslAuthenticate message and
// resolves with the broker's answer.

import { KafkaClientError } from './errors.mjs';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const HASHES = { 'SCRAM-SHA-256': ['SHA-256', 256], 'SCRAM-SHA-512': ['SHA-512', 512] };

export const SASL_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

const toBase64 = (bytes) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** SCRAM's escaping of '=' and ',' in the user name. */
const saslName = (name) => name.replace(/=/g, '=3D').replace(/,/g, '=2C');

async function hmac(hash, key, data) {
  const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', k, typeof data === 'string' ? encoder.encode(data) : data));
}

/**
 * The client side of one SCRAM exchange: `first()`, then `final(serverFirst)`, then
 * `verify(serverFinal)`. `nonce` is random unless given (for the RFC's test vectors).
 */
export function scramClient(mechanism, { username, password }, nonce = toBase64(crypto.getRandomValues(new Uint8Array(18)))) {
  const [hash, bits] = HASHES[mechanism];
  const clientFirstBare = `n=${saslName(username)},r=${nonce}`;
  let serverSignature = null;
  return {
    first: () => encoder.encode(`n,,${clientFirstBare}`),
    async final(serverFirstBytes) {
      const serverFirst = decoder.decode(serverFirstBytes);
      const fields = Object.fromEntries(serverFirst.split(',').map((f) => [f[0], f.slice(2)]));
      if (fields.e) throw new KafkaClientError('AUTHENTICATION', `SCRAM: the broker refused: ${fields.e}`);
      if (!fields.r?.startsWith(nonce) || !fields.s || !(Number(fields.i) > 0)) {
        throw new KafkaClientError('AUTHENTICATION', "SCRAM: the broker's first message is not valid (nonce, salt, iterations)");
      }
      const key = await crypto.subtle.importKey('raw', encoder.encode(password), 'PBKDF2', false, ['deriveBits']);
      const salted = new Uint8Array(
        await crypto.subtle.deriveBits({ name: 'PBKDF2', hash, salt: fromBase64(fields.s), iterations: Number(fields.i) }, key, bits),
      );
      const clientKey = await hmac(hash, salted, 'Client Key');
      const storedKey = new Uint8Array(await crypto.subtle.digest(hash, clientKey));
      const withoutProof = `c=${toBase64(encoder.encode('n,,'))},r=${fields.r}`;
      const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
      const signature = await hmac(hash, storedKey, authMessage);
      const proof = clientKey.map((b, i) => b ^ signature[i]);
      serverSignature = await hmac(hash, await hmac(hash, salted, 'Server Key'), authMessage);
      return encoder.encode(`${withoutProof},p=${toBase64(proof)}`);
    },
    verify(serverFinalBytes) {
      const serverFinal = decoder.decode(serverFinalBytes);
      if (serverFinal.startsWith('e=')) throw new KafkaClientError('AUTHENTICATION', `SCRAM: the broker refused: ${serverFinal.slice(2)}`);
      if (!serverFinal.startsWith('v=') || toBase64(serverSignature) !== serverFinal.slice(2)) {
        throw new KafkaClientError('AUTHENTICATION', "SCRAM: the broker's signature does not match (it does not know the password)");
      }
    },
  };
}

/** Runs the mechanism's exchange through `exchange(bytes) -> Promise<bytes>`. */
export async function authenticate(mechanism, credentials, exchange) {
  if (mechanism === 'PLAIN') {
    await exchange(encoder.encode(`\0${credentials.username}\0${credentials.password}`));
    return;
  }
  if (!HASHES[mechanism]) throw new KafkaClientError('INVALID_ARGUMENT', `SASL mechanism ${mechanism} is not supported (${SASL_MECHANISMS.join(', ')})`);
  const scram = scramClient(mechanism, credentials);
  const serverFirst = await exchange(scram.first());
  const serverFinal = await exchange(await scram.final(serverFirst));
  scram.verify(serverFinal);
}
