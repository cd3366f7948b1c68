/**
 * On a narrow screen every table is drawn as a stack of cards, one per row, each cell preceded by its
 * column's name (styles.css, `.table-wrap` container query). The names come from the header row: this
 * copies each header's text onto the cells of its column as `data-label`, which the CSS shows with
 * `attr()`. One place for every table, including pages added later, instead of a label on each cell.
 */
export function labelTableCells(root: ParentNode): void {
  for (const table of root.querySelectorAll('table')) {
    const headers = [...table.querySelectorAll('thead tr:first-child th')].map((th) => th.textContent?.trim() ?? '');
    if (headers.length === 0) continue;
    for (const row of table.querySelectorAll('tbody tr')) {
      let column = 0;
      for (const cell of row.children) {
        const label = headers[column] ?? '';
        if (cell.getAttribute('data-label') !== label) cell.setAttribute('data-label', label);
        column += (cell as HTMLTableCellElement).colSpan || 1;
      }
    }
  }
}

/** Keeps the labels right as pages render and re-render, at most once per animation frame. */
export function watchTableLabels(root: HTMLElement): () => void {
  let pending = false;
  const observer = new MutationObserver(() => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      labelTableCells(root);
    });
  });
  // Attribute changes are not watched: the labels written here must not wake the observer again.
  observer.observe(root, { childList: true, subtree: true, characterData: true });
  labelTableCells(root);
  return () => observer.disconnect();
}
