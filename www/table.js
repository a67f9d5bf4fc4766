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

export class VirtualTable {
  /**
   * columns: [{ id, label, width (CSS track size), className? }]
   * renderRow(viewIndex, cells): fills the row's cells, an object { [column id]: element }
   * onSelect(viewIndex): a row was clicked or reached with the keyboard
   * onLayout(headCells): after the column widths changed; they can be read here. Returns true when
   *   the rows must be drawn again (what fits in a cell changed).
   */
  constructor(root, { columns, rowHeight, renderRow, onSelect, onLayout }) {
    this.columns = columns;
    this.rowHeight = rowHeight;
    this.renderRow = renderRow;
    this.onSelect = onSelect;
    this.onLayout = onLayout;
    this.rowCount = 0;
    this.selected = -1;
    this.pool = []; // { el, cells, index: view index it stands for, shown: view index drawn, stale }
    this.following = true; // scrolled to the end: rows added there come into view (changeRows)
    this.widths = ''; // the column widths set on the rows
    this.drawnScrollTop = -1; // the scroll position the rows were placed for
    this.frame = 0; // the animation frame that draws the next rows of a change
    this.onDrawn = null; // called once the rows of the last change are all drawn

    root.classList.add('vtable');
    root.tabIndex = 0;
    root.style.setProperty('--columns', columns.map((c) => c.width).join(' '));
    root.style.setProperty('--row-height', `${rowHeight}px`);
    this.root = root;

    this.head = document.createElement('div');
    this.head.className = 'vhead';
    this.head.setAttribute('role', 'row');
    this.headCells = {};
    for (const c of columns) {
      const cell = document.createElement('div');
      cell.className = `vcell ${c.className ?? ''}`;
      cell.setAttribute('role', 'columnheader');
      cell.textContent = c.label;
      if (c.title) cell.title = c.title;
      this.head.append(cell);
      this.headCells[c.id] = cell;
    }
    this.space = document.createElement('div');
    this.space.className = 'vspace';
    this.layer = document.createElement('div');
    this.layer.className = 'vrows';
    this.space.append(this.layer);
    this.empty = document.createElement('div');
    this.empty.className = 'vempty';
    root.append(this.head, this.space, this.empty);

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
    new ResizeObserver(() => {
      // the header's grid resolves the column widths; rows take them in pixels
      const widths = columns.map((c) => this.headCells[c.id].getBoundingClientRect().width);
      let redraw = false;
      if (widths.join() !== this.widths) {
        this.widths = widths.join();
        columns.forEach((c, k) => root.style.setProperty(`--w-${c.id}`, `${widths[k]}px`));
        redraw = this.onLayout?.(this.headCells) ?? true;
      }
      if (this.following) this.scrollToEnd();
      // a new height only shows more or fewer rows
      this.update(redraw);
    }).observe(root);
    this.layer.addEventListener('click', (event) => {
      const row = event.target.closest('.vrow');
      if (row) this.onSelect(Number(row.dataset.row));
    });
    root.addEventListener('keydown', (event) => this.onKey(event));
  }

  /** Replaces the rows (after a decode or a filter); `selected` is a view index or -1. */
  setRows(count, selected = -1, emptyText = '') {
    this.onDrawn = null; // the caller says what is shown now
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

  setSelected(viewIndex) {
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

  toContent(scrollTop) {
    const total = this.contentHeight();
    if (total <= MAX_SCROLL_HEIGHT) return scrollTop;
    const view = this.viewportHeight();
    return (scrollTop / Math.max(1, MAX_SCROLL_HEIGHT - view)) * (total - view);
  }

  toScroll(contentTop) {
    const total = this.contentHeight();
    if (total <= MAX_SCROLL_HEIGHT) return contentTop;
    const view = this.viewportHeight();
    return (contentTop / Math.max(1, total - view)) * (MAX_SCROLL_HEIGHT - view);
  }

  scrollToRow(viewIndex) {
    const view = this.viewportHeight();
    const top = viewIndex * this.rowHeight;
    const current = this.toContent(this.root.scrollTop);
    if (top < current) this.root.scrollTop = this.toScroll(top);
    else if (top + this.rowHeight > current + view) this.root.scrollTop = this.toScroll(top + this.rowHeight - view);
  }

  makeRow() {
    const el = document.createElement('div');
    el.className = 'vrow';
    el.setAttribute('role', 'row');
    const cells = {};
    for (const c of this.columns) {
      const cell = document.createElement('div');
      cell.className = `vcell ${c.className ?? ''}`;
      cell.style.width = `var(--w-${c.id})`;
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

  /** Draws `row` if it shows another record than the one it stands for, or stale data. */
  drawRow(row) {
    if (row.shown === row.index && !row.stale) return false;
    const { el, index } = row;
    if (row.shown !== index) el.dataset.row = index;
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

  onKey(event) {
    if (!this.rowCount) return;
    const page = Math.max(1, Math.floor(this.viewportHeight() / this.rowHeight) - 1);
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page, Home: -Infinity, End: Infinity };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const from = this.selected < 0 ? -1 : this.selected;
    const to = Math.min(this.rowCount - 1, Math.max(0, from + moves[event.key]));
    this.onSelect(to);
  }
}
