import { describe, expect, it } from 'vitest';
import { labelTableCells } from './table-labels';

describe('labelTableCells', () => {
  it('gives each cell its column header, across colspans, and only for tables with a header', () => {
    const root = document.createElement('div');
    root.innerHTML = `
      <table><thead><tr><th>Name</th><th>Spend <span>total</span></th><th><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody><tr><td>a</td><td>$1</td><td>Edit</td></tr><tr><td colspan="2">wide</td><td>x</td></tr></tbody></table>
      <table><tbody><tr><td>bare</td></tr></tbody></table>`;
    labelTableCells(root);
    const labels = [...root.querySelectorAll('td')].map((cell) => cell.getAttribute('data-label'));
    expect(labels).toEqual(['Name', 'Spend total', 'Actions', 'Name', 'Actions', null]);
  });
});
