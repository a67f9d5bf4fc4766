// The side list of topics (live mode): each topic with its partition count and records (latest
// minus earliest offset, summed), and under the chosen one its partitions with their earliest and
// end offsets. The list is as wide as its longest name needs, within bounds. Names come from the
// broker: they are set as text.

import { h, formatCount } from './dom.js';

const $ = (id) => document.getElementById(id);
const MIN_WIDTH = 220;
const MAX_WIDTH = 340;

/** Draws `topics` ([{ topic, isInternal, error, partitions: [{ partition, earliest, latest }] }]); `choose(topic)` on a click. */
export function renderTopics(topics, chosen, choose) {
  $('topics-count').textContent = `(${formatCount(topics.length)})`;
  if (!topics.length) {
    $('topics-body').replaceChildren(h('p', { class: 'placeholder' }, 'The cluster has no topics.'));
    return;
  }
  const rows = topics.flatMap((t) => {
    const known = t.partitions.filter((p) => p.earliest !== null && p.latest !== null);
    const records = known.reduce((sum, p) => sum + (p.latest - p.earliest), 0n);
    const ranges = t.partitions.map((p) => `${p.partition}: ${p.earliest ?? '?'}–${p.latest ?? '?'}`).join('\n');
    const isChosen = t.topic === chosen;
    const row = h('tr', {
      class: `topic-row${isChosen ? ' chosen' : ''}`, dataset: { topic: t.topic }, title: `${t.topic}\nEarliest–end offset per partition:\n${ranges}`,
      onclick: () => choose(t.topic),
    },
    h('td', { class: 'topic' }, t.topic, t.isInternal && h('span', { class: 'badge' }, 'internal')),
    h('td', { class: 'num' }, formatCount(t.partitions.length)),
    h('td', { class: 'num' }, t.error ? '—' : formatCount(records)));
    if (!isChosen) return [row];
    // the chosen topic's partitions: where each starts and ends (its next offset)
    const parts = t.error
      ? [h('tr', { class: 'partition-row' }, h('td', { colspan: '3' }, h('span', { class: 'error-code' }, t.error)))]
      : t.partitions.map((p) => h('tr', { class: 'partition-row', dataset: { partition: String(p.partition), earliest: String(p.earliest ?? ''), latest: String(p.latest ?? '') } },
        h('td', {}, `partition ${p.partition}`),
        h('td', { class: 'num', colspan: '2', title: p.errorName ?? 'earliest – end offset' }, `${p.earliest ?? '?'} – ${p.latest ?? '?'}`)));
    return [row, ...parts];
  });
  $('topics-body').replaceChildren(h('table', { id: 'topic-list' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Topic'), h('th', { class: 'num', title: 'Partitions' }, 'Parts'),
      h('th', { class: 'num', title: 'Latest minus earliest offset, summed over the partitions' }, 'Records'))),
    h('tbody', {}, rows)));
  fitWidth(topics);
}

/** The list as wide as its longest name and numbers need, between MIN_WIDTH and MAX_WIDTH. */
function fitWidth(topics) {
  const context = document.createElement('canvas').getContext('2d');
  const style = getComputedStyle(document.body);
  context.font = `13px ${style.getPropertyValue('--sans')}`;
  const name = Math.max(0, ...topics.map((t) => context.measureText(t.topic).width + (t.isInternal ? 60 : 0)));
  context.font = `12px ${style.getPropertyValue('--mono')}`;
  const numbers = context.measureText('000 000,000,000').width;
  const width = Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, name + numbers + 70)));
  document.body.style.setProperty('--sidebar-width', `${width}px`);
}
