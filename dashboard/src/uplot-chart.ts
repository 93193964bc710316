/**
 * The chart drawing, loaded only by a page that shows charts (metrics-charts.tsx imports it
 * lazily; decision 293): uPlot, a small canvas time-series library, draws one chart per
 * host element at the host's width, and follows the host's size as the page resizes.
 */
import uPlot from 'uplot';
import type { ChartSpec } from './chart-spec.js';

const HEIGHT = 170;
/** Counts and milliseconds are whole numbers: the y axis steps by 1, 2, 5, 10, 20, 25, 50, … only. */
const WHOLE_STEPS = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000].flatMap((p) => [p, 2 * p, 2.5 * p, 5 * p]).filter(Number.isInteger);
const AXIS = { stroke: '#4a5360', grid: { stroke: '#e6e9ed', width: 1 }, ticks: { stroke: '#d5dae0', width: 1 } };

export interface ChartHandle {
  update(spec: ChartSpec): void;
  destroy(): void;
}

const dataOf = (spec: ChartSpec): uPlot.AlignedData => [spec.times, ...spec.series.map((s) => s.values)];

export function drawChart(host: HTMLElement, first: ChartSpec): ChartHandle {
  // The axes' range is the asked range, with or without data; read at each redraw.
  let spec = first;
  const opts: uPlot.Options = {
    width: Math.max(host.clientWidth, 200),
    height: HEIGHT,
    legend: { show: false },
    cursor: { show: false },
    scales: {
      x: { time: true, range: () => [spec.start, spec.end] },
      y: {
        range: (_u, _min, max) => (spec.unit === 'percent' ? [0, 100] : [0, max > 0 ? Math.ceil(max * 1.15) : 10]),
      },
    },
    axes: [
      { ...AXIS, space: 60 },
      {
        ...AXIS,
        size: 64,
        values: (_u, splits) => splits.map(spec.tick),
        ...(first.unit === 'percent' ? {} : { incrs: WHOLE_STEPS }),
      },
    ],
    series: [
      {},
      ...spec.series.map((s) => ({
        label: s.label,
        stroke: s.color,
        width: 1.5,
        fill: `${s.color}14`,
        spanGaps: false,
        points: { show: (u: uPlot) => u.data[0].length <= 72, size: 4 },
      })),
    ],
  };
  const plot = new uPlot(opts, dataOf(spec), host);
  const resize = new ResizeObserver(() => {
    const width = Math.max(host.clientWidth, 200);
    if (width !== plot.width) plot.setSize({ width, height: HEIGHT });
  });
  resize.observe(host);
  return {
    update(next) {
      spec = next;
      plot.setData(dataOf(spec));
    },
    destroy() {
      resize.disconnect();
      plot.destroy();
    },
  };
}
