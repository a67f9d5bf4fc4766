// Export of the view: every record that passes the filter, as JSON lines, with bytes as base64
// or as text (bytes that are not UTF-8 then as { "base64": ... }).

import { formatCount, plural } from './dom.js';
import { toBase64, utf8 } from './bytes.js';
import { $, state, setStatus, baseName, download, nextTask } from './page.js';

/** In text mode, bytes that are not UTF-8 are written as { "base64": … } so nothing is lost. */
function encodeBytes(bytes, mode) {
  if (bytes == null) return null;
  if (mode === 'base64') return toBase64(bytes);
  const { text, valid } = utf8(bytes);
  return valid ? text : { base64: toBase64(bytes) };
}

export async function exportJsonLines() {
  if (!state.store) return;
  const mode = $('export-mode').value;
  // What is kept and shown now: a live tail goes on appending and dropping meanwhile.
  const store = state.store.snapshot();
  const view = state.view;
  const numbers = view.items.slice(view.start, view.end);
  const lines = [];
  const button = $('export');
  const filename = `${baseName()}.${mode}.jsonl`;
  button.disabled = true;
  setStatus('busy', `Exporting ${plural(numbers.length, 'record')}…`, 0);
  let deadline = performance.now() + 10;
  for (let v = 0; v < numbers.length; v++) {
    const d = store.chunkOf(numbers[v]);
    const i = d.position(numbers[v]);
    const r = d.records;
    const p = store.partitions[r.part[i]];
    const batch = d.batches[r.batch[i]];
    const headers = d.headers(i).map((x) => ({ key: x.key, value: encodeBytes(x.value, mode) }));
    const head = JSON.stringify({ topic: p.topic, topicId: p.topicId, partition: p.partition });
    const rest = JSON.stringify({
      timestamp: r.timestamp[i],
      timestampType: batch.timestampType,
      leaderEpoch: batch.partitionLeaderEpoch >= 0 ? batch.partitionLeaderEpoch : null,
      key: encodeBytes(d.key(i), mode),
      value: encodeBytes(d.value(i), mode),
      headers,
      compression: batch.compression,
      isTransactional: batch.isTransactional,
      isControl: r.controlType[i] > 0,
      controlType: r.controlType[i] ? d.controlTypes[r.controlType[i] - 1] : null,
      aborted: batch.isAborted,
    });
    // Offsets are 64-bit: written as exact JSON numbers rather than through a double.
    lines.push(`${head.slice(0, -1)},"offset":${r.offset[i]},${rest.slice(1)}\n`);
    if ((v & 1023) === 0 && performance.now() > deadline) {
      setStatus('busy', `Exporting ${formatCount(v)} of ${plural(numbers.length, 'record')}…`, v / numbers.length);
      await nextTask();
      if (store.partitions !== state.store?.partitions) return; // another source was opened: its own state is showing now
      deadline = performance.now() + 10;
    }
  }
  button.disabled = false;
  download(new Blob(lines, { type: 'application/x-ndjson' }), filename);
  setStatus('ok', `Exported ${plural(numbers.length, 'record')} to ${filename}.`, null);
}
