// The Schema Registry of the Cluster view: its subjects, a subject's versions, and a version's
// schema text with its type, id and references (each a link to the subject and version it names).
// Read from the registry of the Values menu: the relay's /registry (`kafka-fetch-decoder ui
// --schema-registry URL`), which answers GETs of these paths only. What the registry says is set
// as text.

import { h } from '../dom.js';
import { $ } from '../page.js';

/**
 * A version of a subject, as the registry answers GET /subjects/{subject}/versions/{version}
 * (Confluent's REST API): no schemaType for Avro, no references where it has none.
 * @typedef {object} SubjectVersion
 * @property {string} subject
 * @property {number} version
 * @property {number} id
 * @property {'AVRO' | 'PROTOBUF' | 'JSON'} [schemaType]
 * @property {string} schema
 * @property {{ name: string, subject: string, version: number }[]} [references]
 */

/** @param {string} s */
const segment = (s) => encodeURIComponent(s);

export function initRegistry() {
  /** @type {string | null} the registry's URL, without a trailing / */
  let base = null;
  /** @type {string | null} the subject shown */
  let subject = null;

  /**
   * GET `path` of the registry as JSON; an error says the registry's own message.
   * @param {string} path
   * @returns {Promise<any>} the JSON of the answer, its shape the path's (the callers say it)
   */
  async function get(path) {
    const res = await fetch(`${base}${path}`, { headers: { accept: 'application/vnd.schemaregistry.v1+json, application/json' } });
    const body = await res.json().catch(/** @returns {null} */ () => null);
    if (!res.ok) throw new Error(`${res.status} ${body?.message ?? res.statusText} (GET ${path})`);
    return body;
  }

  async function refresh() {
    base = $('val-registry').value.trim().replace(/\/$/, '') || null;
    const body = $('cluster-registry');
    if (!base) {
      body.replaceChildren(
        h(
          'p',
          { class: 'placeholder' },
          'No registry: give its URL in the Values menu (kafka-fetch-decoder ui --schema-registry URL serves one at /registry).',
        ),
      );
      return;
    }
    try {
      /** @type {string[]} */
      const subjects = await get('/subjects');
      body.replaceChildren(
        h('p', { class: 'count' }, `${subjects.length} subject${subjects.length === 1 ? '' : 's'} at ${base}`),
        h(
          'div',
          { class: 'registry' },
          h(
            'ul',
            { class: 'subjects', id: 'registry-subjects' },
            subjects.map((s) =>
              h(
                'li',
                {},
                h('button', { type: 'button', class: s === subject ? 'link chosen' : 'link', dataset: { subject: s }, onclick: () => openSubject(s) }, s),
              ),
            ),
          ),
          h('div', { id: 'registry-schema' }, h('p', { class: 'placeholder' }, 'Pick a subject.')),
        ),
      );
      if (subject && subjects.includes(subject)) openSubject(subject);
    } catch (e) {
      body.replaceChildren(h('p', { class: 'cluster-error' }, `The registry at ${base}: ${e.message}`));
    }
  }

  /**
   * @param {string} name
   * @param {number | null} [version] the latest when null
   */
  async function openSubject(name, version = null) {
    subject = name;
    for (const b of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('#registry-subjects button')))
      b.classList.toggle('chosen', b.dataset.subject === name);
    const pane = $('registry-schema');
    try {
      /** @type {number[]} */
      const versions = await get(`/subjects/${segment(name)}/versions`);
      const shown = version ?? versions.at(-1);
      /** @type {SubjectVersion} */
      const v = await get(`/subjects/${segment(name)}/versions/${shown}`);
      pane.replaceChildren(
        h('h3', {}, name),
        h(
          'div',
          { class: 'versions' },
          'Versions ',
          versions.map((n) =>
            h(
              'button',
              { type: 'button', class: n === v.version ? 'link chosen' : 'link', dataset: { version: String(n) }, onclick: () => openSubject(name, n) },
              String(n),
            ),
          ),
        ),
        h(
          'dl',
          { class: 'facts inline' },
          h('div', {}, h('dt', {}, 'Version'), h('dd', {}, String(v.version))),
          h('div', {}, h('dt', {}, 'Id'), h('dd', {}, String(v.id))),
          h('div', {}, h('dt', {}, 'Type'), h('dd', {}, v.schemaType ?? 'AVRO')),
        ),
        v.references?.length
          ? h(
              'div',
              { class: 'references' },
              h('h4', {}, 'References'),
              h(
                'ul',
                {},
                v.references.map((r) =>
                  h(
                    'li',
                    {},
                    h(
                      'button',
                      { type: 'button', class: 'link', dataset: { reference: r.subject }, onclick: () => openSubject(r.subject, r.version) },
                      `${r.name} → ${r.subject} v${r.version}`,
                    ),
                  ),
                ),
              ),
            )
          : null,
        h('pre', { class: 'schema-text', id: 'registry-text' }, pretty(v.schema, v.schemaType)),
      );
    } catch (e) {
      pane.replaceChildren(h('p', { class: 'cluster-error' }, e.message));
    }
  }

  return { refresh };
}

/**
 * JSON schemas (Avro, JSON Schema) indented; Protobuf as it is.
 * @param {string} text
 * @param {SubjectVersion['schemaType']} type
 */
function pretty(text, type) {
  if (type === 'PROTOBUF') return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
