/**
 * What a metric chart shows, worked out from the API's answer (decision 49) without the
 * chart library: the periods of the range, each series' values (null where a period has no
 * point, so the line breaks there), and the sentence that says in words what the chart
 * draws. The page renders that sentence at once; uplot-chart.ts draws the rest when loaded.
 */
import type { Metrics } from '../../contract/monitoring-schemas.js';
import type { MetricName } from '../../contract/vocabulary.js';

export type Unit = Metrics['series'][number]['unit'];

export interface ChartSeries {
  label: string;
  color: string;
  values: (number | null)[];
}

export interface ChartSpec {
  /** Start of each period of the range, Unix seconds. */
  times: number[];
  series: ChartSeries[];
  unit: Unit;
  /** A value with its unit, for the axis (formatValue, compact; passed in so the lazy chart module shares no code with the app). */
  tick: (v: number) => string;
  /** The x axis spans the whole range, data or not: [start, end) in Unix seconds. */
  start: number;
  end: number;
}

export interface ChartDef {
  id: string;
  title: string;
  metrics: { name: MetricName; label: string; color: string }[];
}

/** The five metrics in four charts: requests and their 5xx errors share one. */
export const CHARTS: readonly ChartDef[] = [
  { id: 'cpu', title: 'CPU utilization', metrics: [{ name: 'cpu_utilization', label: 'CPU', color: '#0b57a4' }] },
  { id: 'memory', title: 'Memory utilization', metrics: [{ name: 'memory_utilization', label: 'Memory', color: '#6b3fa0' }] },
  {
    id: 'requests',
    title: 'HTTP requests and 5xx errors',
    metrics: [
      { name: 'http_requests', label: 'Requests', color: '#17663a' },
      { name: 'http_errors', label: '5xx errors', color: '#b3261e' },
    ],
  },
  { id: 'latency', title: 'Response time, 95th percentile', metrics: [{ name: 'response_time_p95', label: 'p95', color: '#8a5a00' }] },
];

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

export function chartSpec(def: ChartDef, m: Metrics): ChartSpec {
  const start = seconds(m.start);
  const end = seconds(m.end);
  const times: number[] = [];
  for (let t = start; t < end; t += m.period) times.push(t);
  const index = new Map(times.map((t, i) => [t, i]));
  let unit: Unit = 'count';
  const series = def.metrics.map(({ name, label, color }) => {
    const values: (number | null)[] = times.map(() => null);
    const found = m.series.find((s) => s.metric === name);
    if (found) unit = found.unit;
    for (const p of found?.points ?? []) {
      const i = index.get(seconds(p.time));
      if (i !== undefined) values[i] = p.value;
    }
    return { label, color, values };
  });
  const u = unit as Unit;
  return { times, series, unit: u, tick: (v) => formatValue(v, u, true), start, end };
}

/** A value with its unit, as the summary writes it, or (`compact`) as the axis does: `18k` for 18,250. */
export function formatValue(v: number, unit: Unit, compact = false): string {
  if (unit === 'percent') return `${Number.isInteger(v) || v >= 10 ? Math.round(v) : v.toFixed(1)} %`;
  if (unit === 'milliseconds') return v >= 1000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`;
  return compact && v >= 10_000 ? `${(v / 1000).toFixed(0)}k` : Math.round(v).toLocaleString('en-US');
}

/** "per minute", "per 5 minutes", "per hour": what one count point covers. */
export function perPeriod(period: number): string {
  if (period === 3600) return 'per hour';
  if (period === 60) return 'per minute';
  return `per ${period / 60} minutes`;
}

/** The chart in words, its text alternative: each series' latest value and its range, or that there is none. */
export function describeSeries(spec: ChartSpec, over: string): string {
  const parts = spec.series.map((s) => {
    const known = s.values.filter((v): v is number => v !== null);
    if (known.length === 0) return `${s.label}: no data ${over}`;
    const latest = known[known.length - 1]!;
    const f = (v: number) => formatValue(v, spec.unit);
    return `${s.label}: latest ${f(latest)}, lowest ${f(Math.min(...known))}, highest ${f(Math.max(...known))} ${over}`;
  });
  return `${parts.join('. ')}.`;
}
