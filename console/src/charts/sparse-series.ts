/**
 * Whether a time series has too few measured points to draw as a line or area: a line between a day
 * of traffic and the zero days around it draws a ramp nobody measured. Such series are drawn as bars
 * (one bar per point that has a value). Sparse: fewer than 3 points with a non-zero value, or non-zero
 * points making up less than a quarter of the series.
 */
export function isSparse(data: readonly object[], keys: readonly string[]): boolean {
  const measured = data.filter((row) =>
    keys.some((key) => {
      const value = (row as Record<string, unknown>)[key];
      return typeof value === 'number' && value !== 0;
    }),
  ).length;
  return measured < 3 || measured < data.length / 4;
}
