// The detail pane for one record: key and value decoded (values.js: by their schema or format),
// as text / pretty JSON / hex dump / base64, the headers in wire order (duplicates and nulls
// kept), and the record's batch.

import { h, isoTime, show, formatCount } from '../dom.js';
import { utf8, isPrintable, hexDump, toBase64, toHex, reindentJson, formatSize } from '../../shared/bytes.js';
import { decodedView } from '../values/values.js';

/**
 * @typedef {import('../../../pkg/web.mjs').Bytes} Bytes
 * @typedef {import('../../../pkg/web.mjs').Int64} Int64
 * @typedef {import('../../../pkg/web.mjs').DecodedSide<Int64>} DecodedSide
 * @typedef {import('../store.js').RecordReader['chunks'][number]} Chunk a chunk of the store (store.js's class)
 * @typedef {'decoded' | 'text' | 'json' | 'hex' | 'base64'} Tab a view of a key or value
 * @typedef {object} DetailOptions
 * @property {Record<string, Tab>} prefs the tab chosen per field ('key', 'value'), kept from record to record
 * @property {(p: import('../store.js').PartitionRow) => string} partitionLabel
 * @property {(bytes: Bytes, name: string) => void} onDownload the Download button of a key or value (never null then)
 * @property {(record: Pick<import('../../../pkg/web.mjs').KafkaRecord<Int64>, 'key' | 'value' | 'headers'>)
 *   => Promise<{ key: DecodedSide, value: DecodedSide } | null>} decode
 * @typedef {[string, string | number] | false | null} Fact a row of facts (false or null: none)
 */

// Views render at most this much at once; larger payloads get a notice and a "show all" button.
const VIEW_LIMIT = { text: 256 * 1024, json: 256 * 1024, hex: 64 * 1024, base64: 256 * 1024 };
// JSON (objects and arrays) is only tried up to this size: parsing is the costly part.
const JSON_LIMIT = 8 * 1024 * 1024;
/** @type {[Tab, string][]} */
const TABS = [
  ['decoded', 'Decoded'],
  ['text', 'Text'],
  ['json', 'JSON'],
  ['hex', 'Hex'],
  ['base64', 'Base64'],
];

/**
 * Renders record number `n` of `store` into `root`. `prefs` remembers the tab chosen per field, so
 * stepping through records keeps the hex view open once it has been picked. `decode(record)`: a
 * promise of its decoded key and value, or null when values are not decoded.
 */
/**
 * @param {HTMLElement} root
 * @param {import('../store.js').RecordReader} store
 * @param {number} n
 * @param {DetailOptions} options
 */
export function renderDetail(root, store, n, { prefs, partitionLabel, onDownload, decode }) {
  const data = store.chunkOf(n);
  const i = data.position(n);
  const r = data.records;
  const batch = data.batches[r.batch[i]];
  const part = store.partitions[r.part[i]];
  const key = data.key(i);
  const value = data.value(i);
  const ts = r.timestamp[i];
  const control = r.controlType[i] ? data.controlTypes[r.controlType[i] - 1] : null;
  const offset = String(r.offset[i]);
  const decoded = control ? null : decode({ key, value, headers: data.headers(i) });
  const side = (/** @type {'key' | 'value'} */ name) => decoded && decoded.then((d) => d?.[name] ?? null);

  root.replaceChildren(
    h('h2', {}, `${partitionLabel(part)} · offset ${offset}`),
    facts([
      ['Topic', part.topic ?? (part.topicId ? `id ${part.topicId}` : '—')],
      ['Partition', show(part.partition)],
      ['Offset', offset],
      ['Timestamp', isoTime(ts) ? `${isoTime(ts)} (${ts})` : `none (${ts})`],
      ['Timestamp type', show(batch.timestampType)],
      ['Leader epoch', batch.partitionLeaderEpoch >= 0 ? batch.partitionLeaderEpoch : '—'],
      control && ['Control type', control],
      ['Sizes', `key ${sizeText(key)} · value ${sizeText(value)} · headers ${formatSize(r.headerBytes[i])}`],
    ]),
    bytesSection(root, 'Key', 'key', key, prefs, () => onDownload(key, `offset-${offset}.key`), side('key')),
    bytesSection(root, 'Value', 'value', value, prefs, () => onDownload(value, `offset-${offset}.value`), side('value')),
    headersSection(data, i),
    batchSection(batch, data.batchRecords[r.batch[i]]),
  );
}

const sizeText = (/** @type {Bytes | null} */ bytes) => (bytes ? formatSize(bytes.length) : 'null');

/** @param {Fact[]} rows */
function facts(rows) {
  return h(
    'dl',
    { class: 'facts' },
    /** @type {[string, string | number][]} */ (rows.filter(Boolean)).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
  );
}

/**
 * One of key and value; `decoded`: a promise of its decoded side (values.js), or null.
 * @param {HTMLElement} pane
 * @param {string} title
 * @param {'key' | 'value'} fieldName
 * @param {Bytes | null} bytes
 * @param {Record<string, Tab>} prefs
 * @param {() => void} download
 * @param {Promise<DecodedSide | null> | null} decoded
 */
function bytesSection(pane, title, fieldName, bytes, prefs, download, decoded) {
  const section = h('section', { class: 'bytes', id: `detail-${fieldName}` });
  const heading = h('h3', {}, title, ' ', h('small', {}, sizeText(bytes)));
  if (bytes == null) {
    section.append(heading, h('p', { class: 'null' }, 'null'));
    return section;
  }
  if (bytes.length === 0) {
    section.append(heading, h('p', { class: 'empty' }, 'empty (0 bytes)'));
    return section;
  }

  const { text, valid } = utf8(bytes);
  const printable = valid && isPrintable(text);
  let json = null;
  if (valid && bytes.length <= JSON_LIMIT && /^\s*[[{]/.test(text)) {
    try {
      JSON.parse(text);
      json = reindentJson(text);
    } catch {
      /* not JSON: the tab stays disabled */
    }
  }
  const available = { decoded: false, text: true, json: json != null, hex: true, base64: true };
  const fallback = json != null ? 'json' : printable ? 'text' : 'hex';
  let tab = available[prefs[fieldName]] ? prefs[fieldName] : fallback;
  let showAll = false;

  const view = h('pre', { class: 'view' });
  const decodedPane = h('div', { class: 'decoded-pane' });
  const notice = h('p', { class: 'notice' });
  const tabs = h('div', { class: 'tabs', role: 'tablist' });
  const draw = () => {
    for (const button of /** @type {HTMLCollectionOf<HTMLButtonElement>} */ (tabs.children)) {
      button.setAttribute('aria-selected', String(button.dataset.tab === tab));
      if (button.dataset.tab) button.disabled = !available[/** @type {Tab} */ (button.dataset.tab)];
    }
    view.hidden = tab === 'decoded';
    decodedPane.hidden = tab !== 'decoded';
    if (tab === 'decoded') {
      notice.hidden = true;
      return;
    }
    const limit = showAll ? Infinity : VIEW_LIMIT[tab];
    view.className = `view view-${tab}`;
    let shown = bytes.length;
    if (tab === 'hex') {
      view.textContent = hexDump(bytes, limit, hexBytesPerLine(pane));
      shown = Math.min(bytes.length, limit);
    } else {
      const full = tab === 'json' ? json : tab === 'base64' ? toBase64(bytes) : text;
      view.textContent = full.length > limit ? full.slice(0, limit) : full;
      if (full.length > limit) shown = Math.round((limit / full.length) * bytes.length);
    }
    const parts = [];
    if (tab === 'text' && !valid) parts.push('Not valid UTF-8: invalid bytes show as \uFFFD.');
    if (shown < bytes.length) {
      parts.push(
        `Showing about ${formatSize(shown)} of ${formatSize(bytes.length)}. `,
        h(
          'button',
          {
            type: 'button',
            class: 'link',
            onclick: () => {
              showAll = true;
              draw();
            },
          },
          'Show all',
        ),
      );
    }
    notice.replaceChildren(...parts);
    notice.hidden = parts.length === 0;
  };
  for (const [id, label] of TABS) {
    tabs.append(
      h(
        'button',
        {
          type: 'button',
          role: 'tab',
          dataset: { tab: id },
          disabled: !available[id],
          title: id === 'json' && !available.json ? 'not valid JSON' : id === 'decoded' ? 'By the schema or format the value settings choose' : null,
          onclick: () => {
            tab = id;
            prefs[fieldName] = id;
            draw();
          },
        },
        label,
      ),
    );
  }
  tabs.append(
    h('button', { type: 'button', class: 'download', onclick: download, title: 'Download the raw bytes', 'aria-label': 'Download the raw bytes' }, '⤓'),
  );
  draw();
  section.append(heading, tabs, notice, view, decodedPane);
  decoded?.then((d) => {
    if (!d) return;
    decodedPane.replaceChildren(decodedView(d));
    available.decoded = true;
    // decoded data first, unless another view was picked for this field
    if (d.format !== 'bytes' && (prefs[fieldName] === undefined || prefs[fieldName] === 'decoded')) tab = 'decoded';
    heading.append(' ', h('span', { class: 'badge format' }, d.format === 'bytes' ? 'not decoded' : (d.messageType ?? d.format)));
    draw();
  });
  return section;
}

/**
 * 16 bytes per line when a 79-character line fits the pane, else 8, so the ASCII column stays in view.
 * @param {HTMLElement} pane
 */
function hexBytesPerLine(pane) {
  const probe = h('pre', { class: 'view view-hex', style: 'position:absolute;visibility:hidden;padding:0;border:0' }, '0'.repeat(79));
  pane.append(probe);
  // the pane's own padding plus the view's padding and border
  const fits = probe.scrollWidth + 60 <= pane.clientWidth;
  probe.remove();
  return fits ? 16 : 8;
}

/**
 * @param {Chunk} data
 * @param {number} i the record's position in the chunk's columns
 */
function headersSection(data, i) {
  const headers = data.headers(i);
  const count = headers.length;
  const keys = headers.map((x) => x.key);
  /** @type {Map<string, number>} */
  const occurrences = new Map();
  for (const key of keys) occurrences.set(key, (occurrences.get(key) ?? 0) + 1);

  const rows = keys.map((key, n) => {
    const bytes = headers[n].value;
    const times = occurrences.get(key);
    return h(
      'tr',
      {},
      h('td', { class: 'num' }, n + 1),
      h(
        'td',
        { class: 'hkey' },
        key === '' ? h('span', { class: 'empty' }, '(empty)') : key,
        times > 1 && h('span', { class: 'badge dup', title: `this key appears ${times} times` }, `dup ×${times}`),
      ),
      h('td', { class: 'hvalue' }, headerValue(bytes)),
      h('td', { class: 'num' }, bytes ? formatSize(bytes.length) : '—'),
    );
  });
  return h(
    'section',
    { id: 'detail-headers' },
    h('h3', {}, 'Headers ', h('small', {}, count)),
    count
      ? h(
          'table',
          { class: 'grid' },
          h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'Key'), h('th', {}, 'Value'), h('th', {}, 'Size'))),
          h('tbody', {}, rows),
        )
      : h('p', { class: 'empty' }, 'no headers'),
  );
}

/** @param {Bytes | null} bytes */
function headerValue(bytes) {
  if (bytes == null) return h('span', { class: 'null' }, 'null');
  if (bytes.length === 0) return h('span', { class: 'empty' }, '(empty)');
  const { text, valid } = utf8(bytes);
  if (valid && isPrintable(text)) return text;
  return h('span', { class: 'hex', title: `base64 ${toBase64(bytes)}` }, h('span', { class: 'tag' }, 'hex'), ' ', toHex(bytes, ' '));
}

/**
 * A record's batch: `shown`, how many of its records the page holds.
 * @param {import('../../../pkg/web.mjs').Batch<Int64>} b
 * @param {number} shown
 */
function batchSection(b, shown) {
  const yesNo = (/** @type {boolean | null} */ v) => (v == null ? '—' : v ? 'yes' : 'no');
  const crc = b.crcValid == null ? 'not checked' : b.crcValid ? 'valid' : 'INVALID';
  return h(
    'section',
    { id: 'detail-batch' },
    h('h3', {}, 'Batch'),
    facts([
      ['Offsets', `${show(b.baseOffset)} – ${show(b.lastOffset)}`],
      [
        'Records here',
        b.recordCount != null && b.recordCount !== shown ? `${formatCount(shown)} (the batch header says ${formatCount(b.recordCount)})` : formatCount(shown),
      ],
      b.sizeInBytes != null && [
        'Size',
        `${formatSize(b.sizeInBytes)} on the wire${b.uncompressedSize != null && b.compression !== 'none' ? `, ${formatSize(b.uncompressedSize)} decompressed` : ''}`,
      ],
      b.position != null && ['Position', `byte ${b.position} of the input`],
      ['Magic', show(b.magic)],
      ['Compression', show(b.compression)],
      ['Timestamp type', show(b.timestampType)],
      ['Transactional', yesNo(b.isTransactional)],
      ['Control', yesNo(b.isControl)],
      b.isAborted && ['Aborted', 'yes (listed in the partition’s aborted transactions)'],
      ['Producer id', show(b.producerId)],
      ['Producer epoch', show(b.producerEpoch)],
      ['Base sequence', show(b.baseSequence)],
      ['Leader epoch', show(b.partitionLeaderEpoch)],
      b.baseTimestamp != null && ['Base / max timestamp', `${show(b.baseTimestamp)} / ${show(b.maxTimestamp)}`],
      b.hasDeleteHorizon && ['Delete horizon', 'set (the base timestamp is the delete horizon)'],
      ['CRC', crc],
    ]),
  );
}
