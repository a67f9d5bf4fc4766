// The Cluster view (live mode): the cluster beside the records, read-only. The brokers, the chosen
// topic's configuration (the values set first, then the defaults), the consumer groups with their
// lag (cluster-groups.js) and the Schema Registry's subjects (cluster-registry.js). Kafka is read
// through a worker of this view's own (worker.js's 'cluster-*' messages, worker-cluster.js) and the
// relay; the registry through the relay's /registry. Everything brokers say is set as text.

import { h } from '../dom.js';
import { initGroups } from './cluster-groups.js';
import { initRegistry } from './cluster-registry.js';
import { $ } from '../page.js';

/**
 * The view's worker's messages (shared/decode-protocol.js): each request's result, and what the
 * worker posts back (the result, or the error).
 * @typedef {import('../../shared/decode-protocol.js').ClusterResults} ClusterResults
 * @typedef {import('../../shared/decode-protocol.js').ClusterRequest} ClusterRequest
 * @typedef {import('../../shared/decode-protocol.js').ClusterAnswer
 *   | import('../../shared/decode-protocol.js').ErrorAnswer} ClusterReply
 */

/** A request to the view's worker (`ask` below), as cluster-groups.js is given it. @typedef {typeof ask} Ask */

/** @type {Worker | null} */
let worker = null;
let nextId = 1;
/** @type {Map<number, { resolve: (result: unknown) => void, reject: (error: Error) => void }>} */
const waiting = new Map(); // id -> { resolve, reject }
/** @type {ReturnType<typeof initGroups> | null} */
let groups = null;
/** @type {ReturnType<typeof initRegistry> | null} */
let registry = null;

/**
 * Asks the view's worker: resolves with the result of a 'cluster-*' request through the relay.
 * `fields`: the request's own (a topic, a group).
 * @template {keyof ClusterResults} T
 * @param {T} type
 * @param {{ topic?: string, group?: string }} [fields]
 * @returns {Promise<ClusterResults[T]>}
 */
function ask(type, fields = {}) {
  const relay = $('live-relay').value.trim();
  if (!/^wss?:\/\/[^/\s]+/i.test(relay)) return Promise.reject(new Error('no relay: type its WebSocket URL in the Topics pane (ws://…/kafka)'));
  if (!worker) {
    worker = new Worker(new URL('../../workers/decode/worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = /** @param {MessageEvent<ClusterReply>} event */ ({ data }) => {
      const w = waiting.get(data.id);
      if (!w) return;
      waiting.delete(data.id);
      if (data.type === 'error') w.reject(new Error(data.error.message));
      else w.resolve(data.result);
    };
  }
  const id = nextId++;
  return new Promise((resolve, reject) => {
    // the worker's result is the answer to `type` (ClusterResults)
    waiting.set(id, { resolve: /** @type {(result: unknown) => void} */ (resolve), reject });
    // `fields` hold what `type` asks for (a topic, a group)
    worker.postMessage(/** @type {ClusterRequest} */ ({ type, id, relay, ...fields }));
  });
}

/** @param {any} e what was thrown: an Error, or any value */
const errorLine = (e) => h('p', { class: 'cluster-error' }, String(e?.message ?? e));

/** The brokers: id, address, rack; the controller marked. */
async function showBrokers() {
  const body = $('cluster-brokers');
  try {
    const b = await ask('cluster-brokers');
    body.replaceChildren(
      h('p', { class: 'count' }, `cluster ${b.clusterId ?? '?'} · ${b.brokers.length} broker${b.brokers.length === 1 ? '' : 's'} · from ${b.via}`),
      h(
        'table',
        { class: 'grid' },
        h(
          'thead',
          {},
          h('tr', {}, h('th', { class: 'num' }, 'Id'), h('th', {}, 'Host'), h('th', { class: 'num' }, 'Port'), h('th', {}, 'Rack'), h('th', {}, '')),
        ),
        h(
          'tbody',
          {},
          b.brokers.map((x) =>
            h(
              'tr',
              { dataset: { broker: String(x.nodeId) } },
              h('td', { class: 'num' }, x.nodeId),
              h('td', {}, x.host),
              h('td', { class: 'num' }, x.port),
              h('td', {}, x.rack ?? '–'),
              h('td', {}, x.nodeId === b.controllerId ? 'controller' : ''),
            ),
          ),
        ),
      ),
    );
  } catch (e) {
    body.replaceChildren(errorLine(e));
  }
}

/** The chosen topic's configuration: the values set somewhere first, then the defaults (dimmed). */
async function showTopicConfig() {
  const topic = $('live-topic').value.trim();
  $('cluster-topic-name').textContent = topic ? `: ${topic}` : '';
  const body = $('cluster-config');
  if (!topic) {
    body.replaceChildren(h('p', { class: 'placeholder' }, 'Pick a topic on the left to see its configuration.'));
    return;
  }
  try {
    const { configs } = await ask('cluster-configs', { topic });
    const ordered = [...configs].sort((a, b) => Number(a.isDefault) - Number(b.isDefault) || a.name.localeCompare(b.name));
    body.replaceChildren(
      ordered.length
        ? h(
            'table',
            { class: 'grid', id: 'config-table' },
            h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Value'), h('th', {}, 'Source'))),
            h(
              'tbody',
              {},
              ordered.map((c) =>
                h(
                  'tr',
                  { class: c.isDefault ? 'default' : null, dataset: { name: c.name } },
                  h('td', { class: 'mono' }, c.name),
                  h(
                    'td',
                    { class: 'mono', title: c.synonyms.map((s) => `${s.source}: ${s.name}=${s.value ?? ''}`).join('\n') || null },
                    c.isSensitive ? '(sensitive)' : (c.value ?? '–'),
                  ),
                  h('td', {}, c.source),
                ),
              ),
            ),
          )
        : h('p', { class: 'placeholder' }, 'The broker lists no configuration entry for this topic.'),
    );
  } catch (e) {
    body.replaceChildren(errorLine(e));
  }
}

/** Builds the view once, then (every time it is opened) reads it all again. */
export function openCluster() {
  const panel = $('cluster');
  if (!groups) {
    panel.replaceChildren(
      h('section', { class: 'cluster-part' }, h('h2', {}, 'Brokers'), h('div', { id: 'cluster-brokers' })),
      h('section', { class: 'cluster-part' }, h('h2', {}, 'Topic configuration', h('span', { id: 'cluster-topic-name' })), h('div', { id: 'cluster-config' })),
      h(
        'section',
        { class: 'cluster-part', id: 'cluster-groups-part' },
        h('h2', {}, 'Consumer groups'),
        h('div', { id: 'cluster-groups' }),
        h('div', { id: 'cluster-group' }),
      ),
      h('section', { class: 'cluster-part', id: 'cluster-registry-part' }, h('h2', {}, 'Schema Registry'), h('div', { id: 'cluster-registry' })),
    );
    groups = initGroups({ ask, visible: () => !panel.hidden });
    registry = initRegistry();
  }
  showBrokers();
  showTopicConfig();
  groups.refresh();
  registry.refresh();
}
