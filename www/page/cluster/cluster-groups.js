// The consumer groups of the Cluster view: every group with its state, type, members and total lag;
// a click describes one: its members, and per partition the committed and end offsets, the lag in
// records and in time (how long the first record not consumed has waited), with the group's total
// lag drawn over time while the view is open (read again every few seconds).

import { h, formatCount } from '../dom.js';
import { $ } from '../page.js';

/** One reading of the chosen group's total lag, for the chart: its time (ms since 1970) and lag. @typedef {{ t: number, lag: number }} LagReading */

// how often the chosen group is read again, and how many readings the chart keeps
const EVERY_MS = 3000;
const POINTS = 120;

/**
 * @template T
 * @param {T} v
 * @returns {T | string}
 */
const dash = (v) => (v === null || v === undefined || v === '' ? '–' : v);

/**
 * "3.2 s", "4 min", ...: a lag in time.
 * @param {number | null} ms
 */
function duration(ms) {
  if (ms === null || ms === undefined) return '–';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/**
 * The total lag over time: a line in an SVG (x: time, y: lag from 0 to its highest).
 * @param {LagReading[]} history
 */
function lagChart(history) {
  const width = 480;
  const height = 90;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'lag-chart');
  svg.setAttribute('role', 'img');
  const max = Math.max(1, ...history.map((p) => p.lag));
  const t0 = history[0]?.t ?? 0;
  const span = Math.max(1, (history.at(-1)?.t ?? 0) - t0);
  const points = history.map((p) => `${((p.t - t0) / span) * (width - 8) + 4},${height - 4 - (p.lag / max) * (height - 16)}`).join(' ');
  const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
  line.setAttribute('points', points);
  line.setAttribute('class', 'lag-line');
  svg.append(line);
  svg.setAttribute('aria-label', `total lag over the last ${history.length} readings, at most ${max}`);
  return h(
    'figure',
    { class: 'lag-figure', dataset: { points: String(history.length), last: String(history.at(-1)?.lag ?? '') } },
    svg,
    h(
      'figcaption',
      { class: 'count' },
      `total lag, ${history.length} reading${history.length === 1 ? '' : 's'} every ${EVERY_MS / 1000} s; highest ${formatCount(max)}`,
    ),
  );
}

/**
 * `ask(type, fields)`: a request to the view's worker; `visible()`: whether the view is shown.
 * @param {{ ask: import('./cluster-view.js').Ask, visible: () => boolean }} view
 */
export function initGroups({ ask, visible }) {
  /** @type {string | null} the group described */
  let chosen = null;
  /** @type {LagReading[]} */
  let history = [];
  let timer = 0;

  async function refresh() {
    const body = $('cluster-groups');
    try {
      const list = await ask('cluster-groups');
      body.replaceChildren(
        list.length
          ? h(
              'table',
              { class: 'grid clickable', id: 'groups-table' },
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  h('th', {}, 'Group'),
                  h('th', {}, 'State'),
                  h('th', {}, 'Type'),
                  h('th', { class: 'num' }, 'Members'),
                  h('th', { class: 'num' }, 'Total lag'),
                  h('th', { class: 'num' }, 'Coordinator'),
                ),
              ),
              h(
                'tbody',
                {},
                list.map((g) =>
                  h(
                    'tr',
                    { class: g.groupId === chosen ? 'chosen' : null, dataset: { group: g.groupId }, onclick: () => choose(g.groupId), title: g.error ?? null },
                    h('td', { class: 'mono' }, g.groupId),
                    h('td', {}, dash(g.state)),
                    h('td', {}, dash(g.type)),
                    h('td', { class: 'num' }, dash(g.members)),
                    h('td', { class: 'num' }, g.totalLag === null ? '–' : formatCount(g.totalLag)),
                    h('td', { class: 'num' }, dash(g.coordinator)),
                  ),
                ),
              ),
            )
          : h('p', { class: 'placeholder' }, 'The cluster lists no consumer group.'),
      );
    } catch (e) {
      body.replaceChildren(h('p', { class: 'cluster-error' }, e.message));
    }
    if (chosen) readChosen();
  }

  /** @param {string} groupId */
  function choose(groupId) {
    chosen = groupId;
    history = [];
    for (const row of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('#groups-table tbody tr')))
      row.classList.toggle('chosen', row.dataset.group === groupId);
    readChosen();
  }

  async function readChosen() {
    clearTimeout(timer);
    const asked = chosen;
    const body = $('cluster-group');
    try {
      const g = await ask('cluster-group', { group: asked });
      if (asked !== chosen) return;
      history.push({ t: Date.now(), lag: g.totalLag });
      if (history.length > POINTS) history.shift();
      body.replaceChildren(describe(g));
      // the list's row says what the group's last reading said
      const row = /** @type {HTMLTableRowElement} */ (document.querySelector(`#groups-table tr[data-group="${CSS.escape(asked)}"]`));
      if (row) {
        row.cells[1].textContent = dash(g.state);
        // a count goes in as its digits (textContent takes it as String() would)
        row.cells[3].textContent = /** @type {string} */ (dash(g.members?.length));
        row.cells[4].textContent = g.partitions.some((p) => p.lag !== null) ? formatCount(g.totalLag) : '–';
      }
    } catch (e) {
      if (asked === chosen) body.replaceChildren(h('p', { class: 'cluster-error' }, `${asked}: ${e.message}`));
    }
    // read again while the view is open; a hidden view waits for its next opening
    if (asked === chosen && visible()) timer = setTimeout(readChosen, EVERY_MS);
  }

  /** @param {import('../../../pkg/web.mjs').GroupDescription} g */
  function describe(g) {
    const members =
      g.members === null
        ? h('p', { class: 'placeholder' }, 'The coordinator describes no member (it offers neither DescribeGroups nor ConsumerGroupDescribe).')
        : g.members.length
          ? h(
              'table',
              { class: 'grid', id: 'members-table' },
              h(
                'thead',
                {},
                h('tr', {}, h('th', {}, 'Member'), h('th', {}, 'Client id'), h('th', {}, 'Host'), h('th', {}, 'Subscribed'), h('th', {}, 'Assigned')),
              ),
              h(
                'tbody',
                {},
                g.members.map((m) =>
                  h(
                    'tr',
                    {},
                    h('td', { class: 'mono' }, m.memberId),
                    h('td', {}, dash(m.clientId)),
                    h('td', {}, dash(m.clientHost)),
                    h('td', {}, m.subscription ? m.subscription.topics.join(', ') || dash(m.subscription.topicRegex) : '–'),
                    h('td', { class: 'mono' }, m.assignment.map((tp) => `${tp.topic}/${tp.partition}`).join(', ') || '–'),
                  ),
                ),
              ),
            )
          : h('p', { class: 'placeholder' }, 'No active member.');
    return h(
      'div',
      { class: 'group-detail', dataset: { group: g.groupId, totalLag: String(g.totalLag) } },
      h(
        'h3',
        {},
        g.groupId,
        h(
          'span',
          { class: 'count' },
          ` ${dash(g.state)} · ${dash(g.type)} · ${g.protocolType || 'no protocol type'}${g.protocol ? ` · ${g.protocol}` : ''} · coordinator ${g.coordinator.nodeId} (${g.coordinator.host}:${g.coordinator.port})`,
        ),
      ),
      lagChart(history),
      h('h4', {}, 'Members'),
      members,
      h('h4', {}, 'Partitions'),
      g.partitions.length
        ? h(
            'table',
            { class: 'grid', id: 'lag-table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', {}, 'Topic'),
                h('th', { class: 'num' }, 'Partition'),
                h('th', { class: 'num' }, 'Committed'),
                h('th', { class: 'num' }, 'End'),
                h('th', { class: 'num' }, 'Lag'),
                h('th', { class: 'num' }, 'Lag (time)'),
                h('th', {}, 'Member'),
              ),
            ),
            h(
              'tbody',
              {},
              g.partitions.map((p) =>
                h(
                  'tr',
                  { dataset: { topic: p.topic, partition: String(p.partition), lag: String(p.lag ?? '') } },
                  h('td', {}, p.topic),
                  h('td', { class: 'num' }, p.partition),
                  h('td', { class: 'num' }, dash(p.committedOffset)),
                  h('td', { class: 'num' }, dash(p.endOffset)),
                  h('td', { class: `num${p.lag > 0 ? ' behind' : ''}` }, p.lag === null ? '–' : formatCount(p.lag)),
                  h('td', { class: 'num' }, duration(p.lagMs)),
                  h('td', { class: 'mono' }, dash(p.memberId)),
                ),
              ),
            ),
          )
        : h('p', { class: 'placeholder' }, 'The group has committed no offset.'),
    );
  }

  return { refresh };
}
