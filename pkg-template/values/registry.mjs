// A Schema Registry client for readers: the Confluent REST calls that decoding needs, GET only.
//
//   GET /schemas/ids/{id}                    the schema of an id: { schema, schemaType, references }
//   GET /schemas/guids/{guid}                the same for the GUID ids of Confluent's newer serializers
//   GET /subjects/{subject}/versions/{v}     a reference's schema ({ name, subject, version })
//   GET /schemas/ids/{id}/versions           the subjects an id is registered under (for display)
//
// One request per id, whatever the number of records that carry it (answers are cached and
// requests in flight shared; a 404 is kept as an answer, other failures for FAILURE_TTL_MS, so a
// registry that was down is asked again), a timeout per request, a bound on the size of an answer,
// basic or bearer credentials. schemaType is absent for Avro (the registry's default). Apicurio's
// registries answer the same calls on their Confluent-compatible API (/apis/ccompat/v7).

import { printable } from '../printable.mjs';

/** A registry that could not give a schema: the records keep their bytes, with this as the reason. */
export class RegistryError extends Error {
  constructor(message, { status = null, url = null } = {}) {
    super(printable(message));
    this.name = 'RegistryError';
    this.status = status;
    this.url = url;
  }
}

const DEFAULTS = { timeoutMs: 10_000, maxResponseBytes: 16 * 1024 * 1024 };
// references of references: a chain this deep is a loop or an attack
const MAX_REFERENCE_DEPTH = 32;
const FAILURE_TTL_MS = 10_000;

export class RegistryClient {
  /**
   * `options`: url (the registry's base URL), username and password (basic) or token (bearer),
   * timeoutMs (10 s), maxResponseBytes (16 MiB), fetch (the fetch function; the runtime's by default).
   */
  constructor({ url, username, password, token, timeoutMs = DEFAULTS.timeoutMs, maxResponseBytes = DEFAULTS.maxResponseBytes, fetch = globalThis.fetch } = {}) {
    let base;
    try {
      base = new URL(url);
    } catch {
      throw new RegistryError(`a registry URL is http:// or https://, got '${url}'`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new RegistryError(`a registry URL is http:// or https://, got '${url}'`);
    if (typeof fetch !== 'function') throw new RegistryError('this runtime has no fetch; pass one (option fetch)');
    this.base = base.href.replace(/\/$/, '');
    this.headers = { accept: 'application/vnd.schemaregistry.v1+json, application/json' };
    if (token) this.headers.authorization = `Bearer ${token}`;
    else if (username !== undefined) this.headers.authorization = `Basic ${btoa(`${username}:${password ?? ''}`)}`;
    this.timeoutMs = timeoutMs;
    this.maxResponseBytes = maxResponseBytes;
    // called as a plain function: a browser's fetch refuses to run as another object's method
    this.fetch = (input, init) => fetch(input, init);
    this.cache = new Map(); // path -> Promise of the parsed answer
  }

  /**
   * The schema of an id, its references resolved: { id, schemaType ('AVRO' | 'PROTOBUF' | 'JSON'),
   * schema (text), references: [{ name, subject, version, schemaType, schema, references }] }.
   */
  schemaById(id) {
    return this.#schemaAt(`/schemas/ids/${encodeURIComponent(id)}`, { id });
  }

  /** The same for a GUID id (magic byte 1). */
  schemaByGuid(guid) {
    return this.#schemaAt(`/schemas/guids/${encodeURIComponent(guid)}`, { guid });
  }

  /** The subjects and versions an id is registered under: [{ subject, version }] (for display). */
  versionsOf(id) {
    const path = `/schemas/ids/${encodeURIComponent(id)}/versions`;
    return this.#cached(`versions ${path}`, async () => {
      const answer = await this.#get(path);
      if (!Array.isArray(answer)) throw new RegistryError(`the registry answered ${path} without a list`);
      return answer.filter((v) => typeof v?.subject === 'string').map(({ subject, version }) => ({ subject, version }));
    });
  }

  #schemaAt(path, ids) {
    return this.#cached(`schema ${path}`, async () => {
      const answer = await this.#get(path);
      return { ...ids, ...(await this.#withReferences(answer, 0)) };
    });
  }

  /** A registry answer as a schema, with its references (and theirs) fetched. */
  async #withReferences(answer, depth) {
    if (typeof answer?.schema !== 'string') throw new RegistryError('the registry answered without a schema');
    if (depth > MAX_REFERENCE_DEPTH) throw new RegistryError(`schema references nested deeper than ${MAX_REFERENCE_DEPTH}`);
    const references = [];
    for (const ref of Array.isArray(answer.references) ? answer.references : []) {
      const path = `/subjects/${encodeURIComponent(ref.subject)}/versions/${encodeURIComponent(ref.version)}`;
      const version = await this.#cached(`version ${path}`, () => this.#get(path));
      references.push({ name: ref.name, subject: ref.subject, version: ref.version, ...(await this.#withReferences(version, depth + 1)) });
    }
    return { schemaType: answer.schemaType ?? 'AVRO', schema: answer.schema, references };
  }

  #cached(key, load) {
    let entry = this.cache.get(key);
    if (!entry) {
      entry = load();
      this.cache.set(key, entry);
      entry.catch((e) => {
        if (e?.status === 404) return;
        setTimeout(() => this.cache.get(key) === entry && this.cache.delete(key), FAILURE_TTL_MS).unref?.();
      });
    }
    return entry;
  }

  /** One GET, as JSON; any other answer is a RegistryError naming the URL. */
  async #get(path) {
    const url = `${this.base}${path}`;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    let res;
    try {
      res = await this.fetch(url, { headers: this.headers, signal: controller.signal, redirect: 'error' });
    } catch (e) {
      clearTimeout(timer);
      const why = controller.signal.aborted ? `no answer within ${this.timeoutMs} ms` : (e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(e));
      throw new RegistryError(`the registry at ${this.base} did not answer ${path}: ${why}`, { url });
    }
    try {
      const text = await readBounded(res, this.maxResponseBytes, url);
      if (!res.ok) {
        let message = '';
        try {
          message = JSON.parse(text).message ?? '';
        } catch {
          // not the registry's JSON: the status says enough
        }
        throw new RegistryError(`the registry answered ${path} with ${res.status}${message ? `: ${message}` : ''}`, { status: res.status, url });
      }
      try {
        return JSON.parse(text);
      } catch {
        throw new RegistryError(`the registry answered ${path} with text that is not JSON`, { status: res.status, url });
      }
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The body of `res` as text, refused past `max` bytes (the declared length first, then as it comes). */
async function readBounded(res, max, url) {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    res.body?.cancel?.();
    throw new RegistryError(`the registry's answer of ${declared} bytes is over the ${max}-byte bound`, { status: res.status, url });
  }
  if (!res.body?.getReader) return res.text();
  const reader = res.body.getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > max) {
      reader.cancel();
      throw new RegistryError(`the registry's answer is over the ${max}-byte bound`, { status: res.status, url });
    }
    chunks.push(value);
  }
  const all = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(all);
}
