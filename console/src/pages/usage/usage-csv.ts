import type { Usage } from '../../api/answers';

/** One CSV field: quoted when it holds a comma, quote or line break (RFC 4180). */
function field(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The usage report as CSV: one row per day, then per model and per key, costs in USD with full
 * precision from the exact nano-USD figures (no float rounding in the export).
 */
export function usageToCsv(usage: Usage): string {
  const usd = (nanos: number) => {
    const sign = nanos < 0 ? '-' : '';
    const absolute = Math.abs(nanos);
    return `${sign}${Math.floor(absolute / 1e9)}.${String(absolute % 1e9).padStart(9, '0')}`;
  };
  const header = ['section', 'name', 'requests', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost_usd'];
  const rows: (string | number)[][] = [header];
  for (const day of usage.daily)
    rows.push([
      'day',
      day.date,
      day.requests,
      day.prompt_tokens,
      day.completion_tokens,
      day.total_tokens,
      usd(day.cost_nanos),
    ]);
  for (const model of usage.by_model)
    rows.push([
      'model',
      model.model,
      model.requests,
      model.prompt_tokens,
      model.completion_tokens,
      model.total_tokens,
      usd(model.cost_nanos),
    ]);
  for (const key of usage.by_key)
    rows.push([
      'key',
      key.name ?? key.key_id,
      key.requests,
      key.prompt_tokens,
      key.completion_tokens,
      key.total_tokens,
      usd(key.cost_nanos),
    ]);
  const totals = usage.totals;
  rows.push([
    'total',
    `${usage.start_date}..${usage.end_date}`,
    totals.requests,
    totals.prompt_tokens,
    totals.completion_tokens,
    totals.total_tokens,
    usd(totals.cost_nanos),
  ]);
  return `${rows.map((row) => row.map(field).join(',')).join('\r\n')}\r\n`;
}

/** Hands the CSV to the browser as a download. */
export function downloadCsv(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
