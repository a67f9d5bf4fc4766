// The summary panel: what the response or the tail says as a whole (correlation id, throttle,
// errors, trailing bytes) and per partition (offsets, counts, aborted transactions, tagged fields).

import { h, formatCount, show, patch } from '../dom.js';
import { formatSize } from '../../shared/bytes.js';
import { $ } from '../page.js';
import { listen, state } from '../view-state.js';
import { showView } from '../layout.js';

/** @typedef {import('../store.js').PartitionRow} PartitionRow */
/** @typedef {[string, string | HTMLElement]} Fact a fact of the summary: its name and what it says */

/**
 * Draws the summary of what the page shows (patched in place: a live one is redrawn with the table).
 * `snap`: the tail's counts taken when the table was drawn (live.js snapshot()), so that the
 * summary's counts are the table's.
 * @param {ReturnType<import('../live/live.js').LiveMode['snapshot']>} [snap]
 */
export function renderSummary(snap = null) {
  const root = $('summary-body');
  const d = state.store;
  if (!d) {
    root.replaceChildren(h('p', { class: 'placeholder' }, state.source ? 'Nothing decoded.' : 'No capture open.'));
    return;
  }
  const live = state.source.live ? (snap ?? state.live.shownCounts()) : null;
  if (state.source.live && !live) return;
  /** @type {(string | HTMLElement)[][]} live mode's facts are [name, text] pairs (live.js) */
  const facts = live ? state.live.facts(live) : fileFacts(d);
  // most batches first (codec names come from the decoder's batch objects)
  const codecs = [...d.codecCounts].sort(([, a], [, b]) => b - a);
  const chips = h(
    'div',
    { class: 'chips', id: 'codec-counts' },
    'Batches by codec:',
    codecs.map(([codec, n]) => h('span', { class: 'chip', dataset: { codec: String(codec) } }, h('b', {}, String(codec)), ' ', formatCount(n))),
    h('span', { class: 'sep' }, 'by magic:'),
    [...d.magicCounts].sort(([a], [b]) => a - b).map(([magic, n]) => h('span', { class: 'chip' }, h('b', {}, `v${magic}`), ' ', formatCount(n))),
  );

  // Tagged fields (v12+) only get a column when some partition carries one.
  const tagged = d.partitions.some((p) => p.currentLeader || p.divergingEpoch || p.snapshotId);
  const failed = d.partitions.some((p) => p.error);
  const rows = d.partitions.map((p, i) =>
    h(
      'tr',
      { title: 'Show only this partition', onclick: () => showPartition(i) },
      h('td', { class: 'topic' }, p.partition == null ? state.source.name : (p.topic ?? h('span', { class: 'mono' }, p.topicId ?? '—'))),
      h('td', { class: 'num' }, show(p.partition)),
      h('td', {}, errorCell(p.errorCode)),
      h('td', { class: 'num' }, show(p.highWatermark)),
      h('td', { class: 'num' }, show(p.lastStableOffset)),
      h('td', { class: 'num' }, show(p.logStartOffset)),
      h('td', { class: 'num' }, formatCount(live ? live.partitions[i] : p.recordCount)),
      h('td', { class: 'num' }, formatCount(live ? live.batches[i] : p.batchCount)),
      h('td', { class: 'num' }, show(p.nextOffset)),
      h(
        'td',
        {},
        p.partial ? h('span', { class: 'badge warn', title: 'The records end inside a batch (cut at max bytes); that batch is not shown' }, 'partial') : 'no',
      ),
      h('td', { class: 'aborted-list' }, abortedText(p.abortedTransactions)),
      h('td', { class: 'num' }, p.preferredReadReplica == null || Number(p.preferredReadReplica) < 0 ? '—' : String(p.preferredReadReplica)),
      tagged && h('td', {}, taggedText(p)),
      failed &&
        h(
          'td',
          { class: 'decode-error' },
          p.error ? h('span', { class: 'badge error', title: p.error.message }, `${p.error.code} at byte ${p.error.offset}`) : '—',
        ),
    ),
  );

  // live: a partition's records and batches since the tail started (the store may have dropped some)
  const counted = live ? ['Received', 'Batches received'] : ['Records', 'Batches'];
  // patched, not replaced: a live summary is redrawn every second and mostly only its numbers change
  patch(
    root,
    h(
      'div',
      {},
      h(
        'dl',
        { class: 'facts inline' },
        facts.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v))),
      ),
      chips,
      h(
        'div',
        { class: 'partitions' },
        h(
          'table',
          { class: 'grid', id: 'partitions' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              [
                'Topic',
                'Partition',
                'Error',
                'High watermark',
                'Last stable',
                'Log start',
                ...counted,
                'Next offset',
                'Partial',
                'Aborted transactions',
                'Preferred replica',
                tagged && 'Tagged fields',
                failed && 'Decode error',
              ]
                .filter(Boolean)
                .map((t) => h('th', {}, t)),
            ),
          ),
          h('tbody', {}, rows),
        ),
      ),
    ),
  );
}

// drawn again when another store is shown, and with the table (a tail's counts are the table's)
listen('store', () => renderSummary());
listen('drawn', (snapshot) => renderSummary(snapshot.live));

/**
 * A partition's row clicked: the records panel, filtered to that partition (the filter bar's change).
 * @param {number} i the partition's index in the store
 */
function showPartition(i) {
  const select = $('filter-partition');
  select.value = String(i);
  select.dispatchEvent(new Event('change'));
  showView('records');
}

/**
 * The summary's facts about a decoded file.
 * @param {import('../store.js').RecordStore} d
 */
function fileFacts(d) {
  /** @type {Partial<typeof state.source.decodedWith>} */
  const opts = state.source.decodedWith ?? {};
  /** @type {Fact[]} */
  const facts = [
    ['Source', `${state.source.name} · ${formatSize(state.source.size)}`],
    ['Format', d.kind === 'frame' ? `Fetch v${opts.apiVersion} response${opts.header ? ' with header' : ' body'}` : 'Record set / log segment'],
  ];
  if (d.response) {
    const r = d.response;
    facts.push(
      ['Correlation id', show(r.correlationId)],
      ['Throttle', r.throttleTimeMs == null ? '—' : `${r.throttleTimeMs} ms`],
      ['Error', errorCell(r.errorCode)],
      ['Session id', show(r.sessionId)],
    );
    if (r.trailingBytes) {
      facts.push([
        'Trailing bytes',
        h(
          'span',
          { class: 'badge warn', id: 'trailing-bytes', title: r.hint ?? 'usually a wrong API version, or a capture glued to the next frame' },
          `${formatCount(r.trailingBytes)} ignored`,
        ),
      ]);
    }
    if (r.error) facts.push(['Cut short', h('span', { class: 'badge warn', title: r.error.message }, `${r.error.code} at byte ${r.error.offset}`)]);
    if (r.nodeEndpoints?.length) {
      facts.push(['Node endpoints', r.nodeEndpoints.map((n) => `${n.nodeId}: ${n.host}:${n.port}${n.rack ? ` (${n.rack})` : ''}`).join(', ')]);
    }
  }
  facts.push(['Records', formatCount(d.count)], ['Batches', formatCount(d.batchCount)], ['Partitions', formatCount(d.partitions.length)]);
  return facts;
}

/**
 * "NOT_LEADER_OR_FOLLOWER (6)", by the decoder's table of Kafka's error names.
 * @param {number | null} code
 */
function errorCell(code) {
  if (code == null) return '—';
  const n = Number(code);
  const name = state.protocol?.errorNames[String(n)] ?? 'UNKNOWN_CODE';
  return h('span', { class: n === 0 ? 'ok-code' : 'error-code' }, `${name} (${n})`);
}

/** @param {PartitionRow} p */
function taggedText(p) {
  const parts = [];
  if (p.currentLeader) parts.push(`current leader ${p.currentLeader.leaderId} (epoch ${p.currentLeader.leaderEpoch})`);
  if (p.divergingEpoch) parts.push(`diverging epoch ${p.divergingEpoch.epoch} ending at ${p.divergingEpoch.endOffset}`);
  if (p.snapshotId) parts.push(`snapshot ${p.snapshotId.endOffset} (epoch ${p.snapshotId.epoch})`);
  return parts.join(', ') || '—';
}

/** @param {PartitionRow['abortedTransactions']} list */
function abortedText(list) {
  if (!list?.length) return '—';
  return list.map((a) => `producer ${a.producerId} from ${a.firstOffset}`).join(', ');
}
