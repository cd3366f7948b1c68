/** Previous / next over an offset-paged list ({data, total, limit, offset} answers). */
export function Pager({
  label,
  offset,
  pageSize,
  total,
  onOffset,
}: {
  label: string;
  offset: number;
  pageSize: number;
  total: number;
  onOffset: (offset: number) => void;
}) {
  if (total <= pageSize && offset === 0) return null;
  return (
    <nav className="pager" aria-label={label}>
      <span className="muted">
        {Math.min(offset + 1, total)}–{Math.min(offset + pageSize, total)} of {total}
      </span>
      <button
        type="button"
        className="button small"
        disabled={offset === 0}
        onClick={() => onOffset(Math.max(0, offset - pageSize))}
      >
        Previous
      </button>
      <button
        type="button"
        className="button small"
        disabled={offset + pageSize >= total}
        onClick={() => onOffset(offset + pageSize)}
      >
        Next
      </button>
    </nav>
  );
}
