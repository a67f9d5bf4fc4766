// A Schema Registry client for readers: the Confluent REST calls that decoding needs, GET only.
//
//   GET /schemas/ids/{id}                    the schema of an id: { schema, schemaType, references }
//   GET /schemas/guids/{guid}                the same for the GUID ids of Confluent's newer serializers
//   GET /subjects/{subject}/versions/{v}     a reference's schema ({ name, subject, version })
//   GET /schemas/ids/{id}/versions           the subjects an id is registered under (for display)
//
// One request per id, whatever the number of records that carry it (answers are cached and
// requests in flight shared; a 404 is kept as an answer, other failures for FAILURE_TTL_MS, so a
// registry that was down is asked again), at most maxConcurrent requests at once (the others wait
// their turn), a timeout per request from when it is sent to the end of its body, a bound on the
// size of an answer, basic or bearer credentials. A schema's references are resolved as a graph:
// each subject and version once, however many schemas refer to it, within MAX_REFERENCES and
// MAX_REFERENCE_DEPTH (limits.mjs). schemaType is absent for Avro (the registry's default).
// Apicurio's registries answer the same calls on their Confluent-compatible API (/apis/ccompat/v7).

import { printable } from '../printable.mjs';
import { MAX_REFERENCES, MAX_REFERENCE_DEPTH } from './limits.mjs';

/**
 * A registry that could not give a schema: the records keep their bytes, with this as the reason.
 * `code` is 'LIMIT' when the schema's references go past a bound, else 'REGISTRY'.
 */
export class RegistryError extends Error {
  constructor(message, { status = null, url = null, code = 'REGISTRY' } = {}) {
    super(printable(message));
    this.name = 'RegistryError';
    this.status = status;
    this.url = url;
    this.code = code;
  }
}

const DEFAULTS = { timeoutMs: 10_000, maxResponseBytes: 16 * 1024 * 1024, maxConcurrent: 8 };
const FAILURE_TTL_MS = 10_000;

export class RegistryClient {
  /**
   * `options`: url (the registry's base URL), username and password (basic) or token (bearer),
   * timeoutMs (10 s), maxResponseBytes (16 MiB), maxConcurrent (8 requests at once), fetch (the
   * fetch function; the runtime's by default).
   * @param {Partial<import('../index.d.ts').RegistryOptions> & { maxConcurrent?: number }} [options] (url checked here)
   */
  constructor({
    url,
    username,
    password,
    token,
    timeoutMs = DEFAULTS.timeoutMs,
    maxResponseBytes = DEFAULTS.maxResponseBytes,
    maxConcurrent = DEFAULTS.maxConcurrent,
    fetch = globalThis.fetch,
  } = {}) {
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
    if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1)
      throw new RegistryError(`maxConcurrent is a whole number of requests, 1 or more, got ${maxConcurrent}`);
    this.pool = new RequestPool(maxConcurrent);
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
      return { ...ids, ...(await this.#withReferences(answer)) };
    });
  }

  /**
   * A registry answer as a schema, its references (and theirs) fetched and resolved depth first: a
   * subject and version met again is the node made the first time (so a reference tree that repeats
   * costs its distinct nodes, not its paths), one met on its own path is a cycle.
   */
  async #withReferences(answer) {
    const nodes = new Map(); // 'subject@version' -> its node, or IN_PROGRESS
    const resolve = async (ans, depth) => {
      if (typeof ans?.schema !== 'string') throw new RegistryError('the registry answered without a schema');
      const refs = Array.isArray(ans.references) ? ans.references : [];
      if (refs.length && depth >= MAX_REFERENCE_DEPTH)
        throw new RegistryError(`schema references nested deeper than ${MAX_REFERENCE_DEPTH}`, { code: 'LIMIT' });
      const paths = refs.map((ref) => `/subjects/${encodeURIComponent(ref?.subject)}/versions/${encodeURIComponent(ref?.version)}`);
      // this level's answers asked for at once (the pool bounds them); resolved one after the other
      const room = MAX_REFERENCES - nodes.size;
      for (const [k, path] of paths.slice(0, room).entries())
        if (!nodes.has(keyOf(refs[k]))) this.#cached(`version ${path}`, () => this.#get(path)).catch(() => {});
      const references = [];
      for (const [k, ref] of refs.entries()) {
        const key = keyOf(ref);
        let node = nodes.get(key);
        if (node === IN_PROGRESS) throw new RegistryError(`schema references form a cycle through ${ref.subject} version ${ref.version}`);
        if (!node) {
          if (nodes.size >= MAX_REFERENCES) throw new RegistryError(`a schema with more than ${MAX_REFERENCES} distinct references`, { code: 'LIMIT' });
          nodes.set(key, IN_PROGRESS);
          node = await resolve(await this.#cached(`version ${paths[k]}`, () => this.#get(paths[k])), depth + 1);
          nodes.set(key, node);
        }
        references.push({ name: ref.name, subject: ref.subject, version: ref.version, ...node });
      }
      return { schemaType: ans.schemaType ?? 'AVRO', schema: ans.schema, references };
    };
    return resolve(answer, 0);
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

  /** One GET, as JSON, when the pool has room; any other answer is a RegistryError naming the URL. */
  #get(path) {
    return this.pool.run(() => this.#getNow(path));
  }

  async #getNow(path) {
    const url = `${this.base}${path}`;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    const noAnswer = (e) => {
      const why = controller.signal.aborted ? `no answer within ${this.timeoutMs} ms` : (e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(e));
      return new RegistryError(`the registry at ${this.base} did not answer ${path}: ${why}`, { url });
    };
    let res;
    try {
      res = await this.fetch(url, { headers: this.headers, signal: controller.signal, redirect: 'error' });
    } catch (e) {
      clearTimeout(timer);
      throw noAnswer(e);
    }
    try {
      let text;
      try {
        text = await readBounded(res, this.maxResponseBytes, url);
      } catch (e) {
        // a body that stops coming (or comes too slowly) is the registry's failure, as no answer is
        throw e instanceof RegistryError ? e : noAnswer(e);
      }
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

const IN_PROGRESS = Symbol('in progress');
const keyOf = (ref) => `${ref?.subject}@${ref?.version}`;

/** At most `max` requests at once; the others start, in order, as those end. */
class RequestPool {
  constructor(max) {
    this.max = max;
    this.running = 0;
    this.waiting = [];
  }

  async run(request) {
    if (this.running < this.max) this.running++;
    else await new Promise((resolve) => this.waiting.push(resolve)); // a request that ends hands its place over
    try {
      return await request();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
