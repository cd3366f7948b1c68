import {
  Area,
  AreaChart,
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';

export interface SeriesSpec {
  key: string;
  label: string;
  color?: string;
}

import { isSparse } from './sparse-series';

const PALETTE = ['var(--chart-1)', 'var(--chart-2)', 'var(--chart-3)', 'var(--chart-4)', 'var(--chart-5)'];

/**
 * A chart over time (recharts), one or more series. The figure is described in text for screen
 * readers by `summary`, since an SVG chart says nothing to them.
 */
export function TimeSeriesChart<T extends object>({
  data,
  xKey,
  series,
  kind = 'area',
  stacked = false,
  formatX,
  formatY,
  summary,
  height = 260,
  integers = true,
}: {
  data: T[];
  xKey: keyof T & string;
  series: SeriesSpec[];
  kind?: 'area' | 'bar';
  stacked?: boolean;
  formatX?: (value: string) => string;
  formatY?: (value: number) => string;
  summary: string;
  height?: number;
  /** Whole-number axis ticks (counts); false for money and rates. */
  integers?: boolean;
}) {
  const axisStyle = { fontSize: 12, fill: 'var(--muted)' };
  const common = (
    <>
      <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" vertical={false} />
      <XAxis dataKey={xKey as string} tick={axisStyle} tickFormatter={formatX} stroke="var(--border)" minTickGap={16} />
      <YAxis tick={axisStyle} tickFormatter={formatY} stroke="var(--border)" width={64} allowDecimals={!integers} />
      <Tooltip
        labelFormatter={(label) => (formatX ? formatX(String(label)) : String(label))}
        formatter={(value) => (formatY && typeof value === 'number' ? formatY(value) : String(value))}
        contentStyle={{ background: 'var(--surface)', borderColor: 'var(--border)', color: 'var(--text)' }}
      />
      {series.length > 1 && <Legend wrapperStyle={{ fontSize: 12 }} />}
    </>
  );
  return (
    <figure className="chart" style={{ height, margin: 0 }} aria-label={summary}>
      <ResponsiveContainer width="100%" height="100%">
        {kind === 'bar' ||
        isSparse(
          data,
          series.map((item) => item.key),
        ) ? (
          <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            {common}
            {series.map((item, index) => (
              <Bar
                key={item.key}
                dataKey={item.key}
                name={item.label}
                fill={item.color ?? PALETTE[index % PALETTE.length]}
                stackId={stacked ? 'stack' : undefined}
                radius={stacked ? 0 : [4, 4, 0, 0]}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        ) : (
          <AreaChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            {common}
            {series.map((item, index) => {
              const color = item.color ?? PALETTE[index % PALETTE.length];
              // A line needs two points: with few measured buckets, draw each as a dot too.
              const measured = data.filter((row) => (row as Record<string, unknown>)[item.key] != null).length;
              return (
                <Area
                  key={item.key}
                  type="linear"
                  dataKey={item.key}
                  name={item.label}
                  stroke={color}
                  fill={color}
                  fillOpacity={0.18}
                  strokeWidth={2}
                  stackId={stacked ? 'stack' : undefined}
                  isAnimationActive={false}
                  connectNulls
                  dot={measured < 3 ? { r: 3, fill: color } : false}
                />
              );
            })}
          </AreaChart>
        )}
      </ResponsiveContainer>
      <figcaption className="visually-hidden">{summary}</figcaption>
    </figure>
  );
}
