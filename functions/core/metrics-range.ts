/**
 * The window a metrics request reads (decision 49): which metrics, from when to when, in
 * periods of how many seconds. Pure arithmetic over the query's strings, so the rules
 * (defaults, rounding, the bounds) are unit-tested without a platform, and every driver
 * is handed a window that is already aligned: the same closed period always names the
 * same points.
 */
import type { FieldIssue } from '../../contract/errors.js';
import { METRICS_DEFAULT_MAX_PERIODS, METRICS_MAX_PERIODS, METRICS_RETENTION_SECONDS, TIMESTAMP_PATTERN } from '../../contract/limits.js';
import { METRIC_NAMES, METRIC_PERIODS, METRIC_UNITS, type MetricName, type MetricPeriod } from '../../contract/vocabulary.js';

// The names, units and periods are the vocabulary's (contract/vocabulary.ts); the window's rules are here.
export { METRIC_NAMES, METRIC_PERIODS, METRIC_UNITS, type MetricName, type MetricPeriod };

/** A default period gives at most DEFAULT_MAX_PERIODS periods, an asked one at most MAX_PERIODS (contract/limits.ts). */
export const DEFAULT_MAX_PERIODS = METRICS_DEFAULT_MAX_PERIODS;
export const MAX_PERIODS = METRICS_MAX_PERIODS;
export { METRICS_RETENTION_SECONDS };

const DEFAULT_RANGE_SECONDS = 3600;

export interface MetricsQuery {
  metrics?: string;
  start?: string;
  end?: string;
  period?: string;
}

/** An aligned window: `start` and `end` are Unix seconds, multiples of `period`. */
export interface MetricsWindow {
  metrics: MetricName[];
  start: number;
  end: number;
  period: MetricPeriod;
}

export type WindowResult = { ok: true; window: MetricsWindow } | { ok: false; issues: FieldIssue[] };

/** ISO 8601 in UTC, with or without milliseconds (decision 4's form, and the same to the second). */
export const TIMESTAMP = TIMESTAMP_PATTERN;

function timestamp(value: string): number | undefined {
  if (!TIMESTAMP.test(value)) return undefined;
  const ms = Date.parse(value);
  // Date.parse rolls 2026-02-30 over to March: only a date that reads back the same is one.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== value.slice(0, 19)) return undefined;
  return ms;
}

const floorTo = (seconds: number, period: number) => Math.floor(seconds / period) * period;
const ceilTo = (seconds: number, period: number) => Math.ceil(seconds / period) * period;
const periodsBetween = (start: number, end: number, period: number) => (ceilTo(end, period) - floorTo(start, period)) / period;

/** The window a query asks for at `nowMs`, or the issues that make it invalid (each naming its parameter). */
export function metricsWindow(query: MetricsQuery, nowMs: number): WindowResult {
  const issues: FieldIssue[] = [];

  let metrics: MetricName[] = METRIC_NAMES;
  if (query.metrics !== undefined) {
    const asked = query.metrics.split(',').map((m) => m.trim());
    const unknown = asked.filter((m) => !Object.hasOwn(METRIC_UNITS, m));
    if (unknown.length > 0 || asked.length === 0) {
      issues.push({
        field: 'metrics',
        issue: `must be a comma-separated list of: ${METRIC_NAMES.join(', ')} (unknown: ${unknown.join(', ') || '(empty)'})`,
      });
    } else {
      metrics = [...new Set(asked as MetricName[])];
    }
  }

  let period: MetricPeriod | undefined;
  if (query.period !== undefined) {
    period = METRIC_PERIODS.find((p) => String(p) === query.period);
    if (period === undefined) issues.push({ field: 'period', issue: `must be one of: ${METRIC_PERIODS.join(', ')}` });
  }

  const endMs = query.end === undefined ? nowMs : timestamp(query.end);
  if (endMs === undefined) issues.push({ field: 'end', issue: 'must be a timestamp such as 2026-11-28T06:40:00.000Z' });
  const startMs = query.start === undefined ? (endMs ?? nowMs) - DEFAULT_RANGE_SECONDS * 1000 : timestamp(query.start);
  if (startMs === undefined) issues.push({ field: 'start', issue: 'must be a timestamp such as 2026-11-28T05:40:00.000Z' });
  if (issues.length > 0 || startMs === undefined || endMs === undefined) return { ok: false, issues };

  if (startMs >= endMs) return { ok: false, issues: [{ field: 'start', issue: 'must be before end' }] };
  if (startMs < nowMs - METRICS_RETENTION_SECONDS * 1000 || startMs > nowMs) {
    return { ok: false, issues: [{ field: 'start', issue: 'must be within the last 15 days, not in the future' }] };
  }

  const start = startMs / 1000;
  const end = endMs / 1000;
  const chosen =
    period ??
    METRIC_PERIODS.find((p) => periodsBetween(start, end, p) <= DEFAULT_MAX_PERIODS) ??
    METRIC_PERIODS[METRIC_PERIODS.length - 1]!;
  if (periodsBetween(start, end, chosen) > MAX_PERIODS) {
    return {
      ok: false,
      issues: [
        {
          field: 'period',
          issue: `gives more than ${MAX_PERIODS} periods between start and end; ask for a longer period or a shorter range`,
        },
      ],
    };
  }
  return { ok: true, window: { metrics, start: floorTo(start, chosen), end: ceilTo(end, chosen), period: chosen } };
}

/** When the deployment ran (ready and awake): Unix seconds, `to` null while it still runs. */
export interface RunInterval {
  from: number;
  to: number | null;
}

export interface MetricPoint {
  /** The start of its period, Unix seconds. */
  time: number;
  value: number;
}

export interface MetricSeries {
  metric: MetricName;
  unit: (typeof METRIC_UNITS)[MetricName];
  points: MetricPoint[];
}

/** The start of every period of the window, oldest first. */
export function periodStarts({ start, end, period }: Pick<MetricsWindow, 'start' | 'end' | 'period'>): number[] {
  const out: number[] = [];
  for (let t = start; t < end; t += period) out.push(t);
  return out;
}
