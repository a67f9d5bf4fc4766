// The page's frame: the source tabs (File, Live: which options show), the view tabs (Records,
// Summary, Statistics, SQL, and live mode's Cluster button: which panel takes the main column,
// announced as 'panel'), the detail pane's splitter, the keys that move between table and detail,
// and the menus (closed by Escape or a click elsewhere).

import { $ } from './page.js';
import { announce } from './view-state.js';

const DETAIL_WIDTH_KEY = 'kafka-fetch-decoder.detail-width';
const VIEWS = /** @type {const} */ ({ records: 'workspace', summary: 'summary', stats: 'stats', sql: 'sql', cluster: 'cluster' });
const TABS = /** @type {const} */ ({ records: 'view-records', summary: 'view-summary', stats: 'view-stats', sql: 'sql-open' });

/** @typedef {keyof typeof VIEWS} PanelName a panel that can take the main column */

/** @type {PanelName} */
let view = 'records';

/**
 * The source the controls are for: 'file' or 'live'.
 * @param {'file' | 'live'} mode
 */
export function setMode(mode) {
  document.body.dataset.mode = mode;
  $('mode-file').setAttribute('aria-selected', String(mode === 'file'));
  $('mode-live').setAttribute('aria-selected', String(mode === 'live'));
}

/**
 * Shows one panel in the main column and announces it (app.js loads a panel's module on first use).
 * @param {PanelName} name
 */
export function showView(name) {
  view = name;
  for (const [v, id] of Object.entries(VIEWS)) $(id).hidden = v !== name;
  for (const [v, id] of Object.entries(TABS)) $(id).setAttribute('aria-selected', String(v === name));
  $('sql-open').setAttribute('aria-pressed', String(name === 'sql'));
  $('view-cluster').setAttribute('aria-pressed', String(name === 'cluster'));
  announce('panel', name);
}

/**
 * Opens (or closes) the detail pane; `focus`: moves the keyboard there.
 * @param {boolean} open
 */
export function setDetailOpen(open, focus = false) {
  document.body.dataset.detail = open ? 'open' : 'closed';
  if (open && focus) $('detail').focus();
  if (!open) $('records').focus();
}

/**
 * Enter and Escape in the table: Enter opens the detail of the selected record, Escape closes it.
 * @param {string} key the key's KeyboardEvent.key
 */
export function tableKey(key) {
  if (key === 'Enter') setDetailOpen(true, true);
  else if (key === 'Escape') setDetailOpen(false);
}

function initSplitter() {
  const splitter = $('detail-splitter');
  const setWidth = (/** @type {number} */ px) => {
    const max = $('workspace').clientWidth - 240; // the table keeps room for a few columns
    const width = Math.round(Math.max(260, Math.min(px, max)));
    document.body.style.setProperty('--detail-width', `${width}px`);
    splitter.setAttribute('aria-valuenow', String(width));
    return width;
  };
  const save = (/** @type {number} */ px) => {
    try {
      localStorage.setItem(DETAIL_WIDTH_KEY, String(px));
    } catch {
      /* storage may be off */
    }
  };
  try {
    const saved = Number(localStorage.getItem(DETAIL_WIDTH_KEY));
    if (saved > 0) document.body.style.setProperty('--detail-width', `${saved}px`);
  } catch {
    /* storage may be off */
  }
  splitter.addEventListener('pointerdown', (down) => {
    down.preventDefault();
    splitter.setPointerCapture(down.pointerId);
    splitter.classList.add('dragging');
    const start = $('detail').getBoundingClientRect().width;
    let width = start;
    const move = (/** @type {PointerEvent} */ e) => {
      width = setWidth(start - (e.clientX - down.clientX));
    };
    const up = () => {
      splitter.classList.remove('dragging');
      splitter.removeEventListener('pointermove', move);
      splitter.removeEventListener('pointerup', up);
      save(width);
    };
    splitter.addEventListener('pointermove', move);
    splitter.addEventListener('pointerup', up);
  });
  splitter.addEventListener('keydown', (e) => {
    const step = /** @type {Record<string, number>} */ ({ ArrowLeft: 24, ArrowRight: -24 })[e.key];
    if (!step) return;
    e.preventDefault();
    save(setWidth($('detail').getBoundingClientRect().width + step));
  });
  splitter.addEventListener('dblclick', () => {
    document.body.style.removeProperty('--detail-width');
    save(0);
  });
}

function initMenus() {
  const menus = () => /** @type {NodeListOf<HTMLDetailsElement>} */ (document.querySelectorAll('details.menu[open]'));
  // one menu open at a time; a click elsewhere or Escape closes it
  document.addEventListener(
    'toggle',
    (e) => {
      const target = /** @type {HTMLDetailsElement} */ (e.target);
      if (target.matches?.('details.menu') && target.open) for (const m of menus()) if (m !== target) m.open = false;
    },
    true,
  );
  document.addEventListener('pointerdown', (e) => {
    for (const m of menus()) if (!m.contains(/** @type {Node} */ (e.target))) m.open = false;
  });
  document.addEventListener(
    'keydown',
    (e) => {
      if (e.key === 'Escape' && menus().length) {
        for (const m of menus()) m.open = false;
        e.stopPropagation();
      }
    },
    true,
  );
}

/**
 * Wires tabs, splitter, menus and keys. `modeChanged(mode)`: File or Live was clicked.
 * @param {{ modeChanged?: (mode: 'file' | 'live') => void }} [options]
 */
export function initLayout({ modeChanged = () => {} } = {}) {
  document.body.dataset.detail = 'open';
  $('mode-file').addEventListener('click', () => {
    setMode('file');
    modeChanged('file');
  });
  $('mode-live').addEventListener('click', () => {
    setMode('live');
    modeChanged('live');
  });
  $('view-records').addEventListener('click', () => showView('records'));
  $('view-summary').addEventListener('click', () => showView('summary'));
  $('view-stats').addEventListener('click', () => showView('stats'));
  // the Cluster button (in the live bar) also closes it again (back to the records)
  $('view-cluster').addEventListener('click', () => showView(view === 'cluster' ? 'records' : 'cluster'));
  // SQL's tab also closes it again (back to the records)
  $('sql-open').addEventListener('click', () => showView(view === 'sql' ? 'records' : 'sql'));
  $('detail').addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      $('records').focus();
    }
  });
  // "/" finds: the search box, as in many web apps
  document.addEventListener('keydown', (e) => {
    if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey) return;
    if (/** @type {HTMLElement} */ (e.target).closest?.('input, textarea, select, [contenteditable]')) return;
    e.preventDefault();
    $('filter-text').focus();
  });
  initSplitter();
  initMenus();
}
