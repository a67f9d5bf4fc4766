// Layout checks of the inspection page, shared by the browser tests: the controls on screen are
// neither cut (by the window, their bar, or their own box) nor wrapped onto a second line, the
// table's headers and numbers are whole, and how many record rows are in full view.

/** Problems, as sentences: controls cut or wrapped, headers cut, numbers cut short. Empty when there are none. */
export function controlsCut(page) {
  return page.evaluate(() => {
    const problems = [];
    const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    const name = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} "${(el.textContent || el.placeholder || el.value || '').trim().slice(0, 30)}"`;
    const canvas = document.createElement('canvas').getContext('2d');
    const textWidth = (el, text) => {
      const s = getComputedStyle(el);
      canvas.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      return canvas.measureText(text).width;
    };
    // bars: nothing runs past their edge
    for (const bar of document.querySelectorAll('.topbar, .optbar, .filter-row, .side-relay, #status, #detail .tabs')) {
      if (visible(bar) && bar.scrollWidth > bar.clientWidth + 1)
        problems.push(`${bar.className || bar.id}: content ${bar.scrollWidth}px in ${bar.clientWidth}px`);
    }
    const controls = document.querySelectorAll(
      '.topbar :is(button, select, label, summary, .count), .optbar :is(button, select, label), .filters :is(button, select, label, summary, .count), .side-title button, #status-actions button, #detail .tabs button',
    );
    for (const el of controls) {
      if (!visible(el) || el.closest('details:not([open]) > .menu-body')) continue;
      const r = el.getBoundingClientRect();
      if (r.left < -0.5 || r.right > window.innerWidth + 0.5)
        problems.push(`${name(el)} is cut by the window (${Math.round(r.left)}–${Math.round(r.right)} of ${window.innerWidth})`);
      // one line: a control is about as tall as one line of its text
      if (r.height > 34) problems.push(`${name(el)} is wrapped (${Math.round(r.height)}px tall)`);
      if (el.tagName === 'SELECT') {
        const text = el.selectedOptions[0]?.textContent ?? '';
        if (textWidth(el, text) + 24 > el.clientWidth) problems.push(`${name(el)}: "${text}" does not fit its ${el.clientWidth}px`);
      } else if (el.scrollWidth > el.clientWidth + 1) {
        problems.push(`${name(el)}: its text is cut (${el.scrollWidth}px in ${el.clientWidth}px)`);
      }
    }
    // the panels' tables fit their panel
    for (const box of document.querySelectorAll('#stats .partitions, #stats-sizes, #summary .partitions')) {
      if (visible(box) && box.scrollWidth > box.clientWidth + 1)
        problems.push(`${box.id || box.className} of ${box.closest('section').id}: ${box.scrollWidth}px in ${box.clientWidth}px`);
    }
    for (const head of document.querySelectorAll('#records .vhead .vcell')) {
      if (head.scrollWidth > head.clientWidth + 1) problems.push(`header ${head.dataset.column} is cut`);
    }
    for (const cell of document.querySelectorAll('#records .vrow:not([hidden]) .vcell.num')) {
      if (cell.textContent.endsWith('…')) problems.push(`a ${cell.dataset.column} cell is cut: ${cell.textContent}`);
    }
    return problems;
  });
}

/** How many record rows the table shows in full (below its header, above its bottom edge). */
export function fullRowsShown(page) {
  return page.evaluate(() => {
    const table = document.getElementById('records');
    const box = table.getBoundingClientRect();
    const top = table.querySelector('.vhead').getBoundingClientRect().bottom;
    const bottom = box.top + table.clientHeight;
    return [...table.querySelectorAll('.vrow:not([hidden])')].filter((row) => {
      const r = row.getBoundingClientRect();
      return r.top >= top - 0.5 && r.bottom <= bottom + 0.5 && r.bottom <= window.innerHeight + 0.5;
    }).length;
  });
}
