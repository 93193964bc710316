/**
 * The simulated platform's metrics (decision 49): made up, plausible, and the same on every
 * request. Each value is a function of the deployment, the metric and the period alone (a
 * daily rhythm, the size showing in CPU and memory, a little noise from a hash), so a
 * period that has ended answers the same at every later request without anything stored.
 * Only ended periods in which the deployment ran (it was ready and awake for some of the
 * period) have a point.
 */
import { createHash } from 'node:crypto';
import {
  METRIC_UNITS,
  type MetricName,
  type MetricSeries,
  type MetricsWindow,
  periodStarts,
  type RunInterval,
} from '../../core/metrics-range.js';

export type { MetricSeries, RunInterval };

/** How much of each resource a size's baseline uses: larger deployments are busier but have more headroom. */
const SIZE_LOAD: Record<string, { cpu: number; memory: number; rps: number }> = {
  small: { cpu: 38, memory: 62, rps: 0.8 },
  medium: { cpu: 27, memory: 48, rps: 2.5 },
  large: { cpu: 18, memory: 35, rps: 7 },
};

/** A number in [0, 1) fixed by its inputs. */
function noise(...parts: (string | number)[]): number {
  const digest = createHash('sha256').update(parts.join('|')).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

/** 0 at 03:00 UTC, 1 at 15:00 UTC: the working day most workloads follow. */
const dailyRhythm = (t: number) => (1 - Math.cos(((t / 3600 - 3) / 24) * 2 * Math.PI)) / 2;

const round1 = (n: number) => Math.round(n * 10) / 10;
const clampPercent = (n: number) => Math.min(100, Math.max(0, round1(n)));

/** Whether the deployment ran during any of [t, t + period). */
const ranDuring = (runs: readonly RunInterval[], t: number, period: number) =>
  runs.some((r) => r.from < t + period && (r.to === null || r.to > t));

export function simulatedMetrics(
  deploymentId: string,
  size: string,
  window: MetricsWindow,
  runs: readonly RunInterval[],
  nowSeconds: number,
): MetricSeries[] {
  const load = SIZE_LOAD[size] ?? SIZE_LOAD.small!;
  const times = periodStarts(window).filter((t) => t + window.period <= nowSeconds && ranDuring(runs, t, window.period));
  const at = (t: number) => {
    const rhythm = dailyRhythm(t + window.period / 2);
    const jitter = (m: string) => noise(deploymentId, m, window.period, t);
    const requests = Math.round(load.rps * window.period * (0.3 + 1.4 * rhythm) * (0.8 + 0.4 * jitter('http_requests')));
    // About one request in 400 fails, more when busy; most periods have none.
    const errors = Math.min(requests, Math.floor(requests * 0.005 * rhythm * jitter('http_errors') * 2));
    return {
      cpu_utilization: clampPercent(load.cpu * (0.5 + rhythm) + 8 * jitter('cpu_utilization')),
      memory_utilization: clampPercent(load.memory + 10 * rhythm + 4 * jitter('memory_utilization')),
      http_requests: requests,
      http_errors: errors,
      response_time_p95: round1(120 + 180 * rhythm * (load.cpu / 38) + 60 * jitter('response_time_p95')),
    } satisfies Record<MetricName, number>;
  };
  const values = times.map((t) => ({ t, v: at(t) }));
  return window.metrics.map((metric) => ({
    metric,
    unit: METRIC_UNITS[metric],
    points: values.map(({ t, v }) => ({ time: t, value: v[metric] })),
  }));
}
