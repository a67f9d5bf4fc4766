// A virtualized table: only the rows in view (plus a few) exist in the DOM, and they are reused while
// scrolling, so 100,000 records cost as much as forty. Rows have a fixed height.
//
// A live tail's changes (changeRows) are drawn a few rows per animation frame: when records come fast
// every row in view shows another record at each drawing, and laying out and painting the text of all
// of them in one frame would hold the page thread for tens of milliseconds on a slow machine.

// Browsers cap element heights (around 17 million px in Firefox); past this the scrollbar is scaled.
const MAX_SCROLL_HEIGHT = 8_000_000;
const OVERSCAN = 4;
// Rows drawn in one animation frame by changeRows (a frame also lays out and paints them).
const ROWS_PER_FRAME = 6;

/**
 * A column: its id, header text, width (a CSS track size), least width in px, class and header title.
 * @typedef {{ id: string, label: string, width: string, px?: number, className?: string, title?: string }} TableColumn
 */

/**
 * What the table is made with (see its constructor).
 * @typedef {{ columns: TableColumn[], rowHeight: number, renderRow: (viewIndex: number, cells: Record<string, HTMLElement>) => void,
 *   onSelect: (viewIndex: number) => void, onLayout?: (headCells: Record<string, HTMLElement>) => boolean,
 *   onSort?: (columnId: string) => void, onResize?: (columnId: string, px: number | null) => void,
 *   onKey?: (key: string) => void, onWidth?: () => void }} TableOptions
 */

/**
 * A row of the pool: its element and cells by column id, the view index it stands for, the one it
 * shows (-1: none), and whether what it shows is stale.
 * @typedef {{ el: HTMLDivElement, cells: Record<string, HTMLDivElement>, index: number, shown: number, stale: boolean }} PoolRow
 */

export class VirtualTable {
  /**
   * columns: [{ id, label, width (CSS track size), px? (its least width), className? }]
   * renderRow(viewIndex, cells): fills the row's cells, an object { [column id]: element }
   * onSelect(viewIndex): a row was clicked or reached with the keyboard
   * onLayout(headCells): after the column widths changed; they can be read here. Returns true when
   *   the rows must be drawn again (what fits in a cell changed).
   * onSort(columnId), onResize(columnId, px | null): a header was clicked, or its right edge
   *   dragged (null: double-clicked, back to its fit); without them headers do neither.
   * onKey(key): Enter or Escape in the table. onWidth(): the table's width changed (before it is laid out).
   */
  /** @param {HTMLElement} root @param {TableOptions} options */
  constructor(root, { columns, rowHeight, renderRow, onSelect, onLayout, onSort, onResize, onKey, onWidth }) {
    this.rowHeight = rowHeight;
    this.renderRow = renderRow;
    this.onSelect = onSelect;
    this.onLayout = onLayout;
    this.onSort = onSort;
    this.onResize = onResize;
    this.onKeyPressed = onKey;
    this.rowCount = 0;
    this.selected = -1;
    /** @type {PoolRow[]} */
    this.pool = []; // { el, cells, index: view index it stands for, shown: view index drawn, stale }
    this.following = true; // scrolled to the end: rows added there come into view (changeRows)
    this.widths = ''; // the column widths set on the rows
    this.drawnScrollTop = -1; // the scroll position the rows were placed for
    this.frame = 0; // the animation frame that draws the next rows of a change
    /** @type {() => void} */
    this.onDrawn = null; // called once the rows of the last change are all drawn

    root.classList.add('vtable');
    root.tabIndex = 0;
    root.style.setProperty('--row-height', `${rowHeight}px`);
    this.root = root;

    this.head = document.createElement('div');
    this.head.className = 'vhead';
    this.head.setAttribute('role', 'row');
    this.space = document.createElement('div');
    this.space.className = 'vspace';
    this.layer = document.createElement('div');
    this.layer.className = 'vrows';
    this.space.append(this.layer);
    this.empty = document.createElement('div');
    this.empty.className = 'vempty';
    root.append(this.head, this.space, this.empty);
    this.setColumns(columns);

    let pending = false;
    root.addEventListener('scroll', () => {
      this.following = this.atEnd();
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        // the table's own scrolling (changeRows, setRows) has placed the rows already
        if (this.root.scrollTop !== this.drawnScrollTop) this.update();
      });
    });
    let width = -1;
    let resizing = 0;
    // laid out in the next frame, not in the observer's callback: what the layout changes (column
    // widths, a scrollbar that comes or goes) resizes the table again, which within the callback is
    // a "ResizeObserver loop" error (Firefox, at 1024x768)
    new ResizeObserver(() => {
      resizing ||= requestAnimationFrame(() => {
        resizing = 0;
        if (root.clientWidth !== width) {
          width = root.clientWidth;
          onWidth?.();
        }
        this.relayout();
      });
    }).observe(root);
    this.layer.addEventListener('click', (event) => {
      const row = /** @type {HTMLElement} */ (/** @type {HTMLElement} */ (event.target).closest('.vrow'));
      if (row) this.onSelect(Number(row.dataset.row));
    });
    root.addEventListener('keydown', (event) => this.onKey(event));
  }

  /**
   * Sets the columns (shown, widths): the header is made again, and the rows with it.
   * @param {TableColumn[]} columns
   */
  setColumns(columns) {
    const same = this.columns && columns.length === this.columns.length && columns.every((c, k) => c.id === this.columns[k].id);
    /** @type {TableColumn[]} */
    this.columns = columns;
    this.root.style.setProperty('--columns', columns.map((c) => c.width).join(' '));
    const least = columns.reduce((sum, c) => sum + (c.px ?? (parseInt(c.width, 10) || 0)), 0);
    this.root.style.setProperty('--table-min-width', `${least}px`);
    if (same) {
      this.relayout();
      return;
    }
    /** @type {Record<string, HTMLDivElement>} the header's cells by column id */
    this.headCells = {};
    this.head.replaceChildren(
      ...columns.map((c) => {
        const cell = document.createElement('div');
        cell.className = `vcell ${c.className ?? ''}`;
        cell.setAttribute('role', 'columnheader');
        cell.dataset.column = c.id;
        cell.textContent = c.label;
        if (c.title) cell.title = c.title;
        if (this.onSort) {
          cell.classList.add('sortable');
          cell.addEventListener('click', (e) => !(/** @type {HTMLElement} */ (e.target).classList.contains('resize')) && this.onSort(c.id));
        }
        if (this.onResize) cell.append(this.resizeHandle(c));
        this.headCells[c.id] = cell;
        return cell;
      }),
    );
    // the rows are made again for the new cells
    for (const row of this.pool) row.el.remove();
    this.pool = [];
    this.widths = '';
    this.relayout();
  }

  /**
   * A header's right edge: dragged, it sets the column's width; double-clicked, back to its fit.
   * @param {TableColumn} c
   */
  resizeHandle(c) {
    const handle = document.createElement('span');
    handle.className = 'resize';
    handle.title = 'Drag to change the width; double-click to fit';
    handle.addEventListener('pointerdown', (down) => {
      down.preventDefault();
      handle.setPointerCapture(down.pointerId);
      const start = this.headCells[c.id].getBoundingClientRect().width;
      const move = (/** @type {PointerEvent} */ e) => this.onResize(c.id, start + e.clientX - down.clientX);
      const up = () => {
        handle.removeEventListener('pointermove', move);
        handle.removeEventListener('pointerup', up);
      };
      handle.addEventListener('pointermove', move);
      handle.addEventListener('pointerup', up);
    });
    handle.addEventListener('dblclick', () => this.onResize(c.id, null));
    handle.addEventListener('click', (e) => e.stopPropagation());
    return handle;
  }

  /**
   * Marks the sorted column (aria-sort) or none.
   * @param {string | null} id
   * @param {string} [direction] 'asc' or 'desc'
   */
  setSort(id, direction) {
    for (const [cid, cell] of Object.entries(this.headCells)) {
      if (cid === id) cell.setAttribute('aria-sort', direction === 'desc' ? 'descending' : 'ascending');
      else cell.removeAttribute('aria-sort');
    }
  }

  /** The header's grid resolves the column widths; the rows take them in pixels. */
  relayout() {
    const widths = this.columns.map((c) => this.headCells[c.id].getBoundingClientRect().width);
    let redraw = false;
    if (widths.join() !== this.widths) {
      this.widths = widths.join();
      this.columns.forEach((c, k) => this.root.style.setProperty(`--w-${c.id}`, `${widths[k]}px`));
      redraw = this.onLayout?.(this.headCells) ?? true;
    }
    if (this.following) this.scrollToEnd();
    // a new height only shows more or fewer rows
    this.update(redraw);
  }

  /**
   * Replaces the rows (after a decode or a filter); `selected` is a view index or -1.
   * @param {number} count
   */
  setRows(count, selected = -1, emptyText = '') {
    // a change whose rows were not all drawn yet (a frame may come late): whoever waits for it is
    // told now, else it would never be; the caller then says what is shown
    const pending = this.onDrawn;
    this.onDrawn = null;
    pending?.();
    this.rowCount = count;
    this.selected = selected;
    this.empty.textContent = count ? '' : emptyText;
    this.space.style.height = `${Math.min(count * this.rowHeight, MAX_SCROLL_HEIGHT)}px`;
    if (selected >= 0) this.scrollToRow(selected);
    this.following = this.atEnd();
    this.update(true);
  }

  /**
   * Rows added at the end and the first `removed` rows gone (a live tail). A table scrolled to its
   * end follows the new rows, like `tail -f`; otherwise the rows in view stay in view. The rows are
   * drawn over the next animation frames, a few in each; `onDrawn()` is called once they all are.
   * @param {number} count
   * @param {number} removed
   * @param {number} selected
   * @param {string} [emptyText]
   * @param {() => void} [onDrawn]
   */
  changeRows(count, removed, selected, emptyText = '', onDrawn = null) {
    const top = this.toContent(this.root.scrollTop);
    const following = this.following;
    this.rowCount = count;
    this.selected = selected;
    this.empty.textContent = count ? '' : emptyText;
    this.space.style.height = `${Math.min(count * this.rowHeight, MAX_SCROLL_HEIGHT)}px`;
    if (following) this.scrollToEnd();
    else if (removed) this.root.scrollTop = this.toScroll(Math.max(0, top - removed * this.rowHeight));
    this.following = following; // not lost to the scroll events of the changes above
    this.onDrawn = onDrawn;
    this.update(true, true);
  }

  atEnd() {
    return this.toContent(this.root.scrollTop) + this.viewportHeight() >= this.contentHeight() - this.rowHeight / 2;
  }

  scrollToEnd() {
    this.root.scrollTop = this.toScroll(Math.max(0, this.contentHeight() - this.viewportHeight()));
  }

  setSelected(/** @type {number} */ viewIndex) {
    this.selected = viewIndex;
    if (viewIndex >= 0) this.scrollToRow(viewIndex);
    for (const row of this.pool) row.el.classList.toggle('selected', row.shown >= 0 && row.shown === viewIndex);
  }

  viewportHeight() {
    return Math.max(0, this.root.clientHeight - this.head.offsetHeight);
  }

  // Scrolling works in "content pixels" (row index × row height); when the content is taller than
  // MAX_SCROLL_HEIGHT the scrollbar position maps linearly onto it.
  contentHeight() {
    return this.rowCount * this.rowHeight;
  }

  toContent(/** @type {number} */ scrollTop) {
    const total = this.contentHeight();
    if (total <= MAX_SCROLL_HEIGHT) return scrollTop;
    const view = this.viewportHeight();
    return (scrollTop / Math.max(1, MAX_SCROLL_HEIGHT - view)) * (total - view);
  }

  toScroll(/** @type {number} */ contentTop) {
    const total = this.contentHeight();
    if (total <= MAX_SCROLL_HEIGHT) return contentTop;
    const view = this.viewportHeight();
    return (contentTop / Math.max(1, total - view)) * (MAX_SCROLL_HEIGHT - view);
  }

  scrollToRow(/** @type {number} */ viewIndex) {
    const view = this.viewportHeight();
    const top = viewIndex * this.rowHeight;
    const current = this.toContent(this.root.scrollTop);
    if (top < current) this.root.scrollTop = this.toScroll(top);
    else if (top + this.rowHeight > current + view) this.root.scrollTop = this.toScroll(top + this.rowHeight - view);
  }

  /** @returns {PoolRow} */
  makeRow() {
    const el = document.createElement('div');
    el.className = 'vrow';
    el.setAttribute('role', 'row');
    /** @type {Record<string, HTMLDivElement>} */
    const cells = {};
    for (const c of this.columns) {
      const cell = document.createElement('div');
      cell.className = `vcell ${c.className ?? ''}`;
      cell.style.width = `var(--w-${c.id})`;
      cell.dataset.column = c.id;
      cell.setAttribute('role', 'gridcell');
      cells[c.id] = cell;
      el.append(cell);
    }
    el.hidden = true;
    this.layer.append(el);
    return { el, cells, index: -1, shown: -1, stale: false };
  }

  /**
   * Places the rows in view and draws those that show another record than before; `force`: all of
   * them (new data or filter). `later`: drawn over the next animation frames instead of now (a row
   * not drawn yet keeps what it showed, a row new in view stays hidden until drawn).
   */
  update(force = false, later = false) {
    later &&= !document.hidden; // a hidden page has no animation frames
    const scrollTop = this.root.scrollTop;
    this.drawnScrollTop = scrollTop;
    const contentTop = this.toContent(scrollTop);
    // rows beyond the view make scrolling smooth; a table following a live tail has none below it
    const overscan = this.following ? 0 : OVERSCAN;
    const first = Math.max(0, Math.floor(contentTop / this.rowHeight) - overscan);
    const needed = Math.ceil(this.viewportHeight() / this.rowHeight) + 2 * overscan + 1;
    while (this.pool.length < needed) this.pool.push(this.makeRow());
    // Position the layer so row `first` lands where its content position appears on screen.
    this.layer.style.transform = `translateY(${scrollTop + first * this.rowHeight - contentTop}px)`;
    this.pool.forEach((row, k) => {
      const index = first + k;
      if (k >= needed || index >= this.rowCount) {
        if (!row.el.hidden) row.el.hidden = true;
        row.index = -1;
        row.shown = -1;
        row.stale = false;
        return;
      }
      row.index = index;
      if (force) row.stale = true;
      if (!later) this.drawRow(row);
    });
    if (later) this.drawLater();
    else this.drawn();
  }

  /**
   * Draws `row` if it shows another record than the one it stands for, or stale data.
   * @param {PoolRow} row
   */
  drawRow(row) {
    if (row.shown === row.index && !row.stale) return false;
    const { el, index } = row;
    if (row.shown !== index) el.dataset.row = /** @type {string} */ (/** @type {unknown} */ (index)); // kept as its text
    this.renderRow(index, row.cells);
    row.shown = index;
    row.stale = false;
    if (el.hidden) el.hidden = false;
    if (el.classList.contains('selected') !== (index === this.selected)) el.classList.toggle('selected');
    return true;
  }

  /** Draws ROWS_PER_FRAME rows in each animation frame until all are drawn. */
  drawLater() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      let drawn = 0;
      for (const row of this.pool) {
        if (row.index >= 0 && this.drawRow(row) && ++drawn === ROWS_PER_FRAME) break;
      }
      if (drawn === ROWS_PER_FRAME) this.drawLater();
      else this.drawn();
    });
  }

  /** All rows are drawn: tells whoever waits for it, if nothing is left to draw. */
  drawn() {
    if (this.pool.some((row) => row.index >= 0 && (row.shown !== row.index || row.stale))) return;
    if (this.frame) {
      cancelAnimationFrame(this.frame);
      this.frame = 0;
    }
    const done = this.onDrawn;
    this.onDrawn = null;
    done?.();
  }

  onKey(/** @type {KeyboardEvent} */ event) {
    if ((event.key === 'Enter' || event.key === 'Escape') && this.onKeyPressed) {
      event.preventDefault();
      this.onKeyPressed(event.key);
      return;
    }
    if (!this.rowCount) return;
    const page = Math.max(1, Math.floor(this.viewportHeight() / this.rowHeight) - 1);
    /** @type {Record<string, number>} */
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page, Home: -Infinity, End: Infinity };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const from = this.selected < 0 ? -1 : this.selected;
    const to = Math.min(this.rowCount - 1, Math.max(0, from + moves[event.key]));
    this.onSelect(to);
  }
}
