// The relay's way to a Schema Registry: browsers read schemas through it (the page decodes values
// by them) without the registry's credentials, which the relay holds, and without reaching any
// other path of the registry. A security boundary like the WebSocket relay, so it
//   - answers GET only, and only the schema paths a reader needs (SCHEMA_PATHS: schemas, subjects
//     and their versions), without a query but ?format=serialized; everything else is refused
//     before the registry is asked;
//   - checks the request's Host (its own names: no DNS rebinding) and its Origin (the relay's own
//     pages and --allow-origin; a browser's cross-site request without an Origin is refused by its
//     Sec-Fetch-Site);
//   - sends the registry nothing of the browser's request but the path, rebuilt from its segments
//     decoded and encoded again (a raw \ or # is refused: a URL parser reads them as / and as the
//     end of the path), no cookies, no Authorization; adds its own credentials;
//   - gives back the status and the body only, always as application/json with nosniff and a
//     sandboxing Content-Security-Policy, whatever type the registry said: an answer opened in a
//     tab runs nothing at the relay's origin;
//   - bounds the answers' size, the time to get one, and the requests to the registry at once.

import { printable } from '../printable.mjs';

// the reader's paths (values/registry.mjs), segment by segment: a schema by id or GUID, the
// subjects of an id, and a subject's version (references); and the page's Schema Registry view's:
// the subjects, and a subject's versions. Segments are matched as sent, but a subject, which is
// matched decoded: any text but control characters and a way out (..).
const SUBJECT = /^(?!.*\.\.)[^\u0000-\u001f\u007f]{1,255}$/su;
const SCHEMA_PATHS = [
  [/^schemas$/, /^ids$/, /^\d{1,10}$/],
  [/^schemas$/, /^ids$/, /^\d{1,10}$/, /^versions$/],
  [/^schemas$/, /^guids$/, /^[0-9a-fA-F-]{36}$/],
  [/^subjects$/, SUBJECT, /^versions$/, /^(\d{1,10}|latest)$/],
  [/^subjects$/],
  [/^subjects$/, SUBJECT, /^versions$/],
];
// what answers carry to the browser, whatever the registry sent: JSON, never sniffed, and a page
// of its own if opened (no script, no request, no form, an opaque origin)
const ANSWER_HEADERS = {
  'content-type': 'application/json',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox; frame-ancestors 'none'",
  'cache-control': 'no-store',
};
const DEFAULTS = { timeoutMs: 10_000, maxResponseBytes: 16 * 1024 * 1024, maxConcurrent: 8 };

/**
 * An HTTP handler of the requests under `prefix` (it resolves false for the others). The registry:
 * { url, username, password, token, timeoutMs, maxResponseBytes, maxConcurrent }; `refusal(req)`:
 * why the request's Host or Origin is not the relay's, or null.
 */
export function registryProxy(
  { url, username, password, token, timeoutMs = DEFAULTS.timeoutMs, maxResponseBytes = DEFAULTS.maxResponseBytes, maxConcurrent = DEFAULTS.maxConcurrent },
  { prefix, refusal, log },
) {
  let base;
  try {
    base = new URL(url);
  } catch {
    base = null;
  }
  if (!base || (base.protocol !== 'http:' && base.protocol !== 'https:')) throw new TypeError(`a schema registry URL is http:// or https://, got '${url}'`);
  const root = base.href.replace(/\/$/, '');
  const headers = { accept: 'application/vnd.schemaregistry.v1+json, application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  else if (username !== undefined) headers.authorization = `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}`;
  let inFlight = 0;

  return async (req, res) => {
    const raw = req.url ?? '';
    if (raw !== prefix && !raw.startsWith(`${prefix}/`)) return false;
    const send = (status, body) => {
      if (res.headersSent) return res.destroy();
      res.writeHead(status, { ...ANSWER_HEADERS, ...corsHeaders(req) });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const refuse = (status, message) => {
      log(`registry: refused ${req.method} ${printable(raw, 200)}: ${message}`);
      send(status, { error_code: status, message: `kafka-fetch-decoder relay: ${message}` });
      return true; // handled
    };
    if (req.method !== 'GET') return refuse(405, `${printable(req.method, 20)}: the relay reads schemas (GET) and nothing else`);
    const why = refusal(req);
    if (why) return refuse(403, why);
    const [pathname, query = null] = raw.slice(prefix.length).split(/\?(.*)/s);
    const forwarded = schemaPath(pathname);
    if (!forwarded) return refuse(404, `not a schema path: ${printable(pathname, 200)}`);
    if (query !== null && query !== 'format=serialized') return refuse(404, 'a query other than format=serialized');
    if (inFlight >= maxConcurrent) return refuse(503, `${maxConcurrent} registry requests in progress; try again`);
    inFlight++;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    res.once('close', () => controller.abort());
    try {
      const upstream = await fetch(`${root}${forwarded}${query ? `?${query}` : ''}`, { headers, signal: controller.signal, redirect: 'error' });
      const body = await readBounded(upstream, maxResponseBytes);
      res.writeHead(upstream.status, { ...ANSWER_HEADERS, ...corsHeaders(req) });
      res.end(body);
    } catch (e) {
      const message = controller.signal.aborted
        ? `the registry gave no answer within ${timeoutMs} ms`
        : e?.tooLarge
          ? `the registry's answer is over ${maxResponseBytes} bytes`
          : `the registry did not answer: ${printable(e?.cause?.code ?? e?.cause?.message ?? e?.message ?? e, 200)}`;
      if (!res.destroyed) refuse(502, message);
    } finally {
      clearTimeout(timer);
      inFlight--;
    }
    return true;
  };
}

/**
 * The path to ask the registry for `pathname` (as the browser sent it, under the prefix), or null
 * when it is not a schema path: split at its slashes as sent (a subject's %2F stays in its segment,
 * as the registry reads it), each segment decoded, checked, and encoded again, so that what is
 * forwarded is exactly the segments checked. A raw \ or # (which no browser sends) is refused.
 */
function schemaPath(pathname) {
  if (/[\\#]/.test(pathname) || !pathname.startsWith('/')) return null;
  const raw = pathname.slice(1).split('/');
  let segments;
  try {
    segments = raw.map(decodeURIComponent);
  } catch {
    return null;
  }
  const shape = SCHEMA_PATHS.find((p) => p.length === raw.length && p.every((test, i) => test.test(test === SUBJECT ? segments[i] : raw[i])));
  return shape ? `/${segments.map(encodeURIComponent).join('/')}` : null;
}

/** For a page of another allowed origin (the refusal check let it through): CORS for its GET. */
function corsHeaders(req) {
  return req.headers.origin ? { 'access-control-allow-origin': req.headers.origin, vary: 'origin' } : {};
}

async function readBounded(res, max) {
  const declared = Number(res.headers.get('content-length'));
  const tooLarge = () => Object.assign(new Error('too large'), { tooLarge: true });
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel();
    throw tooLarge();
  }
  const chunks = [];
  let total = 0;
  for await (const chunk of res.body ?? []) {
    total += chunk.length;
    if (total > max) throw tooLarge(); // leaving the loop cancels the body
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
