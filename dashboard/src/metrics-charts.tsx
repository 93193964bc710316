import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Metrics } from '../../contract/monitoring-schemas.js';
import { Alert } from './alert.js';
import { api } from './api.js';
import { CHARTS, type ChartDef, type ChartSpec, chartSpec, describeSeries, perPeriod } from './chart-spec.js';
import { messageOf } from './hooks.js';
import { useLiveLoad } from './live-load.js';
import type { ChartHandle } from './uplot-chart.js';

/**
 * The ranges a reader picks from. The request names only `start`: the service's default
 * period for it (decision 49: the smallest of 60, 300, 3600 s giving at most 360 periods)
 * is a minute for the hour, 5 minutes for the day and an hour for the week.
 */
export const RANGES = [
  { id: 'hour', label: 'Last hour', seconds: 3600, over: 'over the last hour' },
  { id: 'day', label: 'Last day', seconds: 86_400, over: 'over the last day' },
  { id: 'week', label: 'Last week', seconds: 7 * 86_400, over: 'over the last week' },
] as const;
type Range = (typeof RANGES)[number];

/** A point completes at most once a minute; the charts ask again at that pace while the tab is visible (decision 292). */
const METRICS_POLL_MS = 60_000;

/** The chart code (uPlot, about 50 KB) loads once, when a chart is first shown (decision 293). */
let chartModule: Promise<typeof import('./uplot-chart.js')> | undefined;
const loadChartModule = () => {
  chartModule ??= Promise.resolve().then(() => {
    // uPlot makes an Intl.NumberFormat of navigator.language when it loads; Chromium on Linux
    // under LANG=C reports `en-US@posix`, which Intl refuses, and the module would not load.
    try {
      new Intl.NumberFormat(navigator.language);
    } catch {
      Object.defineProperty(navigator, 'language', { value: 'en-US', configurable: true });
    }
    return import('./uplot-chart.js');
  });
  return chartModule;
};

/** One chart: its host element for uPlot, drawn once the chart code is in, redrawn in place with new data. */
function Chart({ spec }: { spec: ChartSpec }) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<ChartHandle | null>(null);
  const latest = useRef(spec);
  latest.current = spec;
  const [failed, setFailed] = useState<string>();
  useEffect(() => {
    let gone = false;
    loadChartModule()
      .then((m) => {
        if (!gone && host.current) chart.current = m.drawChart(host.current, latest.current);
      })
      .catch((e: unknown) => setFailed(`The chart could not be drawn: ${messageOf(e)}`));
    return () => {
      gone = true;
      chart.current?.destroy();
      chart.current = null;
    };
  }, []);
  useEffect(() => chart.current?.update(spec), [spec]);
  return (
    <>
      <div ref={host} class="chart" aria-hidden="true" />
      <Alert message={failed} />
    </>
  );
}

function MetricFigure({ def, metrics, range }: { def: ChartDef; metrics: Metrics; range: Range }) {
  const spec = useMemo(() => chartSpec(def, metrics), [def, metrics]);
  const counts = spec.unit === 'count' ? ` ${perPeriod(metrics.period)}` : '';
  return (
    <figure class="metric" data-chart={def.id}>
      <figcaption>
        <strong>
          {def.title}
          {counts}
        </strong>
        {spec.series.length > 1 && (
          <span class="key" aria-hidden="true">
            {spec.series.map((s) => (
              <span key={s.label} class="swatch">
                {s.label}
              </span>
            ))}
          </span>
        )}
        <span class="summary">{describeSeries(spec, range.over)}</span>
      </figcaption>
      <Chart spec={spec} />
    </figure>
  );
}

/** A deployment's metrics (decision 49) as charts over the last hour, day or week, following new periods while the page is open. */
export function MetricsPanel({ deploymentId }: { deploymentId: string }) {
  const [rangeId, setRangeId] = useState<Range['id']>('hour');
  const range = RANGES.find((r) => r.id === rangeId)!;
  const metrics = useLiveLoad(
    () =>
      api('getDeploymentMetrics', {
        params: { deployment_id: deploymentId },
        query: { start: new Date(Date.now() - range.seconds * 1000).toISOString() },
      }).then((data) => ({ data, range })),
    [deploymentId, rangeId],
    METRICS_POLL_MS,
  );
  const shown = metrics.data;
  return (
    <section class="metrics-panel" aria-labelledby="metrics-heading">
      <div class="metrics-head">
        <h2 id="metrics-heading">Metrics</h2>
        <fieldset class="range">
          <legend class="sr-only">Time range</legend>
          {RANGES.map((r) => (
            <label key={r.id} class={r.id === rangeId ? 'chosen' : undefined}>
              <input type="radio" name="metrics-range" value={r.id} checked={r.id === rangeId} onChange={() => setRangeId(r.id)} />
              {r.label}
            </label>
          ))}
        </fieldset>
      </div>
      <Alert message={metrics.error} />
      {!shown && <p class="note">Loading…</p>}
      {shown && (
        <div class="charts" aria-busy={shown.range.id !== rangeId}>
          {CHARTS.map((def) => (
            <MetricFigure key={def.id} def={def} metrics={shown.data} range={shown.range} />
          ))}
        </div>
      )}
    </section>
  );
}
