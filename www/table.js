// A virtualized table: only the rows in view (plus a few) exist in the DOM, and they are reused while
// scrolling, so 100,000 records cost as much as forty. Rows have a fixed height.

// Browsers cap element heights (around 17 million px in Firefox); past this the scrollbar is scaled.
const MAX_SCROLL_HEIGHT = 8_000_000;
const OVERSCAN = 4;

export class VirtualTable {
  /**
   * columns: [{ id, label, width (CSS track size), className? }]
   * renderRow(viewIndex, cells): fills the row's cells, an object { [column id]: element }
   * onSelect(viewIndex): a row was clicked or reached with the keyboard
   * onLayout(headCells): before rows are redrawn after a size change; column widths can be read here
   */
  constructor(root, { columns, rowHeight, renderRow, onSelect, onLayout }) {
    this.columns = columns;
    this.rowHeight = rowHeight;
    this.renderRow = renderRow;
    this.onSelect = onSelect;
    this.onLayout = onLayout;
    this.rowCount = 0;
    this.selected = -1;
    this.pool = [];
    this.following = true; // scrolled to the end: rows added there come into view (changeRows)

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
        this.update();
      });
    });
    new ResizeObserver(() => {
      // the header's grid resolves the column widths; rows take them in pixels
      for (const c of columns) root.style.setProperty(`--w-${c.id}`, `${this.headCells[c.id].getBoundingClientRect().width}px`);
      this.onLayout?.(this.headCells);
      if (this.following) this.scrollToEnd();
      this.update(true);
    }).observe(root);
    this.layer.addEventListener('click', (event) => {
      const row = event.target.closest('.vrow');
      if (row) this.onSelect(Number(row.dataset.row));
    });
    root.addEventListener('keydown', (event) => this.onKey(event));
  }

  /** Replaces the rows (after a decode or a filter); `selected` is a view index or -1. */
  setRows(count, selected = -1, emptyText = '') {
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
   * end follows the new rows, like `tail -f`; otherwise the rows in view stay in view.
   */
  changeRows(count, removed, selected, emptyText = '') {
    const top = this.toContent(this.root.scrollTop);
    const following = this.following;
    this.rowCount = count;
    this.selected = selected;
    this.empty.textContent = count ? '' : emptyText;
    this.space.style.height = `${Math.min(count * this.rowHeight, MAX_SCROLL_HEIGHT)}px`;
    if (following) this.scrollToEnd();
    else if (removed) this.root.scrollTop = this.toScroll(Math.max(0, top - removed * this.rowHeight));
    this.following = following; // not lost to the scroll events of the changes above
    this.update(true);
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
    for (const row of this.pool) row.el.classList.toggle('selected', Number(row.el.dataset.row) === viewIndex);
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
    this.layer.append(el);
    return { el, cells, shown: -1 };
  }

  /** Draws the rows in view; `force` redraws rows whose index did not change (new data or filter). */
  update(force = false) {
    const scrollTop = this.root.scrollTop;
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
        row.shown = -1;
        return;
      }
      if (row.el.hidden) row.el.hidden = false;
      if (force || row.shown !== index) {
        if (row.shown !== index) row.el.dataset.row = index;
        this.renderRow(index, row.cells);
        row.shown = index;
      }
      if (row.el.classList.contains('selected') !== (index === this.selected)) row.el.classList.toggle('selected');
    });
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
