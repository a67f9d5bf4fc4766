// A minimal in-memory Schema Registry for the live tests, on 127.0.0.1 only. It is the project's
// own, not Confluent's: no Schema Registry server installs here (Confluent's and Apicurio's run on
// the JVM, Karapace is not on PyPI). It speaks the subset of Confluent's REST API that
// confluent-kafka-python's SchemaRegistryClient uses when its Avro, Protobuf and JSON Schema
// serializers register schemas (brokers/produce_values.py), plus what a reader asks: schemas by
// id, subjects and their versions. Confluent's JSON shapes and error codes; no compatibility
// checks (every schema is compatible), no deletes, no contexts. A schema is kept and answered as
// it was registered, with one exception: for Protobuf the Python client registers base64
// FileDescriptorProtos, which Confluent's registry answers as .proto text (and as base64 only for
// ?format=serialized). Given the files' texts (option protoSources: { 'shop/events.proto': text }),
// this one does the same: a descriptor of a file named there is answered as that text (the text
// the test wrote, where Confluent's would print its own canonical form of it).
//
//   const registry = await startRegistry({ auth: { basic: 'user:password' }, protoSources });
//   registry.url            'http://127.0.0.1:P'
//   registry.clientConfig   SchemaRegistryClient settings that reach it (url and credentials)
//   registry.schemas        Map id -> { id, schemaType, schema, references, versions: [{ subject, version }] }
//   registry.requests       [{ method, path, query, body }] in arrival order (path raw, as sent)
//   registry.down(), up()   while down, every request is answered 503
//   registry.override(path, handler)   answer a path (string, or RegExp on the raw path) specially
//   registry.register(subject, { schema, schemaType, references })   as a POST would, unchecked
//   await registry.close()
import http from 'node:http';

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';
const TYPES = ['JSON', 'PROTOBUF', 'AVRO'];
const MAX_VERSION = 2 ** 31 - 1;

class RegistryError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}
const notFound = () => new RegistryError(404, 404, 'HTTP 404 Not Found');
const noSubject = (s) => new RegistryError(404, 40401, `Subject '${s}' not found.`);
const noVersion = (v) => new RegistryError(404, 40402, `Version ${v} not found.`);
const noSchema = (id) => new RegistryError(404, 40403, id === undefined ? 'Schema not found' : `Schema ${id} not found`);
const invalidSchema = (why) => new RegistryError(422, 42201, `Invalid schema: ${why}`);

/** The file name (field 1) of a base64 FileDescriptorProto, or null when `schema` is not one. */
function descriptorName(schema) {
  if (/[;{]/.test(schema)) return null; // .proto text
  const b = Buffer.from(schema, 'base64');
  const varint = (at) => {
    let v = 0;
    for (let i = 0; i < 5 && at + i < b.length; i++) {
      v += (b[at + i] & 0x7f) * 2 ** (7 * i);
      if (b[at + i] < 0x80) return [v, at + i + 1];
    }
    return [NaN, b.length];
  };
  for (let at = 0; at < b.length;) {
    const [tag, next] = varint(at);
    const wire = tag % 8;
    if (wire === 2) {
      const [len, start] = varint(next);
      if (tag >>> 3 === 1) return b.subarray(start, start + len).toString('utf8');
      at = start + len;
    } else if (wire === 0) {
      at = varint(next)[1];
    } else {
      return null; // no other wire type comes before a FileDescriptorProto's name
    }
  }
  return null;
}

/**
 * Start the registry on 127.0.0.1:<port> (0: a free one).
 * @param {{ port?: number, auth?: { basic?: string, bearer?: string }, compatibility?: string,
 *           maxBodyBytes?: number, protoSources?: Record<string, string> }} [options]
 *   auth: requests without these credentials get 401 (error_code 401); basic is 'user:password'.
 */
export async function startRegistry({ port = 0, auth = null, compatibility = 'BACKWARD', maxBodyBytes = 16 << 20, protoSources = {} } = {}) {
  const schemas = new Map(); // id -> entry
  const byIdentity = new Map(); // identity(type, text, references) -> id: the same schema, the same id
  const subjects = new Map(); // subject -> [{ version, id }], in version order
  const configs = new Map(); // subject -> compatibility level
  const requests = [];
  const overrides = []; // [{ path, handler }], the latest first
  let globalLevel = compatibility;
  let isDown = false;

  const identity = (type, text, refs) => JSON.stringify([type, text, refs.map((r) => [r.name, r.subject, r.version])]);
  const referencesOf = (refs) => (refs ?? []).map(({ name, subject, version }) => ({ name, subject, version }));

  function register(subject, { schema, schemaType, references }) {
    const type = (schemaType ?? 'AVRO').toUpperCase();
    const refs = referencesOf(references);
    const key = identity(type, schema, refs);
    const versions = subjects.get(subject) ?? [];
    const known = byIdentity.get(key);
    const same = known !== undefined && versions.find((v) => v.id === known);
    if (same) return { id: known, version: same.version };
    let id = known;
    if (id === undefined) {
      id = schemas.size + 1; // global, from 1
      const text = type === 'PROTOBUF' ? protoSources[descriptorName(schema)] : undefined;
      schemas.set(id, { id, schemaType: type, schema, ...(text !== undefined && { text }), references: refs, versions: [] });
      byIdentity.set(key, id);
    }
    const version = (versions.at(-1)?.version ?? 0) + 1;
    versions.push({ version, id });
    subjects.set(subject, versions);
    schemas.get(id).versions.push({ subject, version });
    return { id, version };
  }

  // What a POST must hold before it is registered or looked up (Confluent's 422 answers).
  function checked(body) {
    if (!body || typeof body.schema !== 'string') throw invalidSchema('no "schema" string');
    const type = (body.schemaType ?? 'AVRO').toUpperCase();
    if (!TYPES.includes(type)) throw new RegistryError(422, 42201, `Invalid schema type ${body.schemaType}`);
    if (type !== 'PROTOBUF') {
      try {
        JSON.parse(body.schema);
      } catch (e) {
        throw invalidSchema(e.message);
      }
    }
    for (const r of body.references ?? []) {
      const v = subjects.get(r.subject)?.find((x) => x.version === r.version);
      if (!v) throw invalidSchema(`reference ${r.name}: no version ${r.version} of subject ${r.subject}`);
    }
    return { schema: body.schema, schemaType: type, references: referencesOf(body.references) };
  }

  // Confluent omits schemaType for AVRO and references when there are none.
  const schemaFields = (e, query) => ({
    ...(e.schemaType !== 'AVRO' && { schemaType: e.schemaType }),
    ...(e.references.length > 0 && { references: e.references }),
    schema: e.text !== undefined && query?.get('format') !== 'serialized' ? e.text : e.schema,
  });

  function versionOf(subject, v) {
    const versions = subjects.get(subject);
    if (!versions) throw noSubject(subject);
    if (v === 'latest' || v === '-1') return versions.at(-1);
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (!(n >= 1 && n <= MAX_VERSION)) {
      throw new RegistryError(
        422,
        42202,
        `The specified version '${v}' is not a valid version id. ` + `Allowed values are between [1, ${MAX_VERSION}] and the string "latest"`,
      );
    }
    const found = versions.find((x) => x.version === n);
    if (!found) throw noVersion(v);
    return found;
  }
  const subjectVersion = (subject, { version, id }, query) => ({ subject, version, id, ...schemaFields(schemas.get(id), query) });

  function schemaById(raw) {
    const e = /^\d+$/.test(raw) && schemas.get(Number(raw));
    if (!e) throw noSchema(raw);
    return e;
  }

  // The REST API: [method, path] -> answer. `p` holds the decoded path segments.
  function route(method, p, body, query) {
    const [head, a, b, c, d, extra] = p;
    const at = `${method} ${[head, a && '*', b, c && '*', d].filter(Boolean).join('/')}`;
    if (head === undefined && method === 'GET') return {};
    if (head === 'schemas') {
      if (method === 'GET' && a === 'types' && p.length === 2) return TYPES;
      if (method !== 'GET' || a !== 'ids' || !b || p.length > 4) throw notFound();
      const e = schemaById(b);
      if (p.length === 3) return schemaFields(e, query);
      if (c === 'versions') return e.versions.map(({ subject, version }) => ({ subject, version }));
      if (c === 'subjects') return [...new Set(e.versions.map((v) => v.subject))];
      throw notFound();
    }
    if (head === 'subjects') {
      if (p.length === 1 && method === 'GET') {
        const prefix = query.get('subjectPrefix') ?? '';
        return [...subjects.keys()].filter((s) => s.startsWith(prefix)).sort();
      }
      if (extra !== undefined) throw notFound();
      switch (at) {
        case 'POST subjects/*': {
          // lookup: is this schema a version of the subject?
          const s = checked(body);
          const versions = subjects.get(a);
          if (!versions) throw noSubject(a);
          const id = byIdentity.get(identity(s.schemaType, s.schema, s.references));
          const v = versions.find((x) => x.id === id);
          if (!v) throw noSchema();
          return subjectVersion(a, v);
        }
        case 'GET subjects/*/versions':
          if (!subjects.has(a)) throw noSubject(a);
          return subjects.get(a).map((v) => v.version);
        case 'POST subjects/*/versions':
          return { id: register(a, checked(body)).id };
        case 'GET subjects/*/versions/*':
          return subjectVersion(a, versionOf(a, c), query);
        case 'GET subjects/*/versions/*/referencedby': {
          const { version } = versionOf(a, c);
          return [...schemas.values()].filter((e) => e.references.some((r) => r.subject === a && r.version === version)).map((e) => e.id);
        }
        default:
          throw notFound();
      }
    }
    if (head === 'config' && p.length <= 2) {
      // answered permissively: any level is taken
      const level = (a !== undefined && configs.get(a)) || globalLevel;
      if (method === 'GET') return { compatibilityLevel: level };
      if (method === 'PUT') {
        const wanted = String(body?.compatibility ?? level).toUpperCase();
        if (a === undefined) globalLevel = wanted;
        else configs.set(a, wanted);
        return { compatibility: wanted };
      }
      if (method === 'DELETE' && a !== undefined) {
        configs.delete(a);
        return { compatibilityLevel: level };
      }
    }
    if (head === 'compatibility' && method === 'POST' && a === 'subjects' && c === 'versions') {
      return { is_compatible: true, ...(query.get('verbose') === 'true' && { messages: [] }) };
    }
    if (head === 'mode' && p.length <= 2) {
      if (method === 'GET') return { mode: 'READWRITE' };
      if (method === 'PUT') return { mode: body?.mode ?? 'READWRITE' };
    }
    if (head === 'contexts' && method === 'GET' && p.length === 1) return ['.'];
    throw notFound(); // /associations among others: the client takes a 404 there as "none"
  }

  function authorized(req) {
    if (!auth) return true;
    const header = req.headers.authorization ?? '';
    if (auth.basic !== undefined) return header === `Basic ${Buffer.from(auth.basic).toString('base64')}`;
    if (auth.bearer !== undefined) return header === `Bearer ${auth.bearer}`;
    return false;
  }

  function send(res, status, body, headers = {}) {
    if (res.headersSent || res.writableEnded) return;
    const raw = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': CONTENT_TYPE, 'content-length': Buffer.byteLength(raw), ...headers });
    res.end(raw);
  }
  const sendError = (res, e) => send(res, e.status, { error_code: e.code, message: e.message });

  async function handle(req, res) {
    const url = new URL(req.url, 'http://registry');
    const entry = { method: req.method, path: url.pathname, query: url.search.slice(1), body: undefined };
    requests.push(entry);
    const chunks = [];
    let size = 0;
    for await (const chunk of req) {
      // read to the end even past the limit: the answer must reach the client
      size += chunk.length;
      if (size <= maxBodyBytes) chunks.push(chunk);
    }
    if (size > maxBodyBytes) return sendError(res, new RegistryError(413, 413, 'Request body too large'));
    const text = Buffer.concat(chunks).toString('utf8');
    let body;
    let badJson = null;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch (e) {
        badJson = e;
      }
    }
    entry.body = badJson ? text : body;

    if (isDown) return sendError(res, new RegistryError(503, 50302, 'Schema Registry is down (test)'));
    if (!authorized(req)) {
      const scheme = auth.bearer !== undefined ? 'Bearer' : 'Basic';
      return send(res, 401, { error_code: 401, message: 'Unauthorized' }, { 'www-authenticate': `${scheme} realm="SchemaRegistry"` });
    }
    const special = overrides.find((o) => (typeof o.path === 'string' ? o.path === url.pathname : o.path.test(url.pathname)));
    if (special) {
      // the handler writes `res` itself, or returns { status, body, headers } (a string or Buffer
      // body is sent as it is: malformed JSON, a huge body)
      const answer = await special.handler(req, res, { body: badJson ? text : body, query: url.searchParams });
      if (answer !== undefined) send(res, answer.status ?? 200, answer.body ?? '', answer.headers);
      return;
    }
    if (badJson) return sendError(res, new RegistryError(400, 400, `Unexpected JSON: ${badJson.message}`));

    let segments;
    try {
      segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent); // subjects may hold %2F
    } catch {
      return sendError(res, notFound());
    }
    try {
      send(res, 200, route(req.method, segments, body, url.searchParams));
    } catch (e) {
      if (!(e instanceof RegistryError)) throw e;
      sendError(res, e);
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => send(res, 500, { error_code: 50001, message: String(e?.message ?? e) }));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  server.unref(); // an idle registry does not keep a test file's event loop alive
  const url = `http://127.0.0.1:${server.address().port}`;
  const clientConfig = { url };
  if (auth?.basic !== undefined) clientConfig['basic.auth.user.info'] = auth.basic;
  if (auth?.bearer !== undefined) {
    Object.assign(clientConfig, {
      'bearer.auth.credentials.source': 'STATIC_TOKEN',
      'bearer.auth.token': auth.bearer,
      'bearer.auth.logical.cluster': 'lsrc-test', // required by the client, ignored here
    });
  }

  return {
    url,
    clientConfig,
    schemas,
    requests,
    down: () => {
      isDown = true;
    },
    up: () => {
      isDown = false;
    },
    /** Answer `path` with handler(req, res, { body, query }) from now on; handler null removes it. */
    override(path, handler) {
      const i = overrides.findIndex((o) => String(o.path) === String(path));
      if (i >= 0) overrides.splice(i, 1);
      if (handler) overrides.unshift({ path, handler });
    },
    /** Register as POST /subjects/{subject}/versions does, without its checks; resolves { id, version }. */
    register: (subject, schema) => register(subject, schema),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
