/**
 * The pure rules behind health (decision 48) and metrics (decision 49): how components roll
 * up, what a check changes, how a metrics window is validated and aligned, and that the
 * simulated series stay within their bounds and answer the same for a closed period.
 */
import fc from 'fast-check';
import { simulatedMetrics } from '../../functions/adapters/platform/simulated-metrics.js';
import {
  applyCheck,
  type ComponentObservation,
  HEALTH_COMPONENTS,
  hibernatedHealth,
  orderComponents,
  rollUp,
  unknownHealth,
} from '../../functions/core/health.js';
import { MAX_PERIODS, METRIC_NAMES, metricsWindow } from '../../functions/core/metrics-range.js';

const T0 = '2026-11-28T10:00:00.000Z';
const T1 = '2026-11-28T10:01:00.000Z';
const T2 = '2026-11-28T10:02:00.000Z';

const all = (app: keyof typeof HEALTH_COMPONENTS, status: ComponentObservation['status'] = 'healthy'): ComponentObservation[] =>
  HEALTH_COMPONENTS[app].map((name) => ({ name, status, message: null }));
const without = (list: ComponentObservation[], name: string, status: ComponentObservation['status'] = 'unhealthy') =>
  list.map((c) => (c.name === name ? { ...c, status, message: `${name} is down` } : c));

describe('health roll-up', () => {
  it('is unhealthy when the webserver, the metadata database or the scheduler is', () => {
    for (const name of ['webserver', 'metadata_db', 'scheduler']) expect(rollUp(without(all('airflow'), name))).toBe('unhealthy');
    for (const name of ['webserver', 'metadata_db']) expect(rollUp(without(all('superset'), name))).toBe('unhealthy');
  });

  it('is degraded when only another component is unhealthy', () => {
    expect(rollUp(without(all('airflow'), 'triggerer'))).toBe('degraded');
    expect(rollUp(without(all('airflow'), 'dag_processor'))).toBe('degraded');
  });

  it('is healthy only when every component is, and unknown when one is unknown and none unhealthy', () => {
    expect(rollUp(all('airflow'))).toBe('healthy');
    expect(rollUp(without(all('airflow'), 'triggerer', 'unknown'))).toBe('unknown');
    expect(rollUp([])).toBe('unknown');
    // unhealthy outranks unknown
    expect(rollUp(without(without(all('airflow'), 'triggerer', 'unknown'), 'scheduler'))).toBe('unhealthy');
  });

  it('orders components as the app type lists them, unknown where the driver said nothing', () => {
    const shuffled = [...all('airflow')].reverse().filter((c) => c.name !== 'triggerer');
    const ordered = orderComponents('airflow', [...shuffled, { name: 'bogus', status: 'healthy', message: null }]);
    expect(ordered.map((c) => c.name)).toEqual(['webserver', 'scheduler', 'dag_processor', 'triggerer', 'metadata_db']);
    expect(ordered[3]!.status).toBe('unknown');
  });
});

describe('a health check', () => {
  const first = applyCheck(unknownHealth(T0), all('airflow'), T1);

  it('takes a never-checked deployment to its first result, moving since', () => {
    expect(first.statusChanged).toBe(true);
    expect(first.detail).toMatchObject({ status: 'healthy', since: T1, checked_at: T1 });
    expect(first.detail.components.every((c) => c.since === T1)).toBe(true);
  });

  it('that changes nothing moves only checked_at', () => {
    const again = applyCheck(first.detail, all('airflow'), T2);
    expect(again.statusChanged).toBe(false);
    expect(again.componentsChanged).toBe(false);
    expect(again.detail).toEqual({ ...first.detail, checked_at: T2 });
  });

  it('that changes a component but not the roll-up moves only that component', () => {
    const degraded = applyCheck(first.detail, without(all('airflow'), 'triggerer'), T2).detail;
    const worse = applyCheck(degraded, without(without(all('airflow'), 'triggerer'), 'dag_processor'), '2026-11-28T10:03:00.000Z');
    expect(worse.statusChanged).toBe(false);
    expect(worse.componentsChanged).toBe(true);
    expect(worse.detail.since).toBe(T2);
    const byName = Object.fromEntries(worse.detail.components.map((c) => [c.name, c]));
    expect(byName.triggerer!.since).toBe(T2);
    expect(byName.dag_processor).toMatchObject({
      status: 'unhealthy',
      since: '2026-11-28T10:03:00.000Z',
      message: 'dag_processor is down',
    });
    expect(byName.scheduler!.since).toBe(T1);
  });

  it('keeps the hibernated status and its since across repeated hibernations', () => {
    const h = hibernatedHealth(first.detail, T2);
    expect(h).toEqual({ status: 'hibernated', since: T2, checked_at: T1, components: [] });
    expect(hibernatedHealth(h, '2026-11-28T11:00:00.000Z').since).toBe(T2);
  });
});

describe('a metrics window', () => {
  const now = Date.parse('2026-11-28T10:17:31.250Z');
  const ok = (q: Parameters<typeof metricsWindow>[0]) => {
    const r = metricsWindow(q, now);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    return r.window;
  };
  const fieldsOf = (q: Parameters<typeof metricsWindow>[0]) => {
    const r = metricsWindow(q, now);
    return r.ok ? [] : r.issues.map((i) => i.field);
  };

  it('defaults to the last hour, every metric, in 60 s periods, rounded outward', () => {
    const w = ok({});
    expect(w.metrics).toEqual(METRIC_NAMES);
    expect(w.period).toBe(60);
    expect(new Date(w.start * 1000).toISOString()).toBe('2026-11-28T09:17:00.000Z');
    expect(new Date(w.end * 1000).toISOString()).toBe('2026-11-28T10:18:00.000Z');
  });

  it('picks the smallest period giving at most 360 periods', () => {
    expect(ok({ start: '2026-11-28T04:18:00Z', end: '2026-11-28T10:18:00Z' }).period).toBe(60); // exactly 360 minutes
    expect(ok({ start: '2026-11-28T04:17:31Z' }).period).toBe(300); // rounded out to 04:17-10:18: 361 minutes
    expect(ok({ start: '2026-11-27T10:17:31.250Z' }).period).toBe(300);
    expect(ok({ start: '2026-11-21T10:17:31.250Z' }).period).toBe(3600);
  });

  it('keeps the order asked and counts a name twice once', () => {
    expect(ok({ metrics: 'http_errors,cpu_utilization,http_errors' }).metrics).toEqual(['http_errors', 'cpu_utilization']);
  });

  it('names the parameter of each problem', () => {
    expect(fieldsOf({ metrics: 'cpu_utilization,disk' })).toEqual(['metrics']);
    expect(fieldsOf({ metrics: '' })).toEqual(['metrics']);
    expect(fieldsOf({ period: '120' })).toEqual(['period']);
    expect(fieldsOf({ start: 'yesterday' })).toEqual(['start']);
    expect(fieldsOf({ end: '2026-02-30T00:00:00Z' })).toEqual(['end']);
    expect(fieldsOf({ start: '2026-11-28T10:00:00Z', end: '2026-11-28T09:00:00Z' })).toEqual(['start']);
    expect(fieldsOf({ start: '2026-11-28T10:00:00Z', end: '2026-11-28T10:00:00Z' })).toEqual(['start']);
    expect(fieldsOf({ start: '2026-11-13T10:00:00Z' })).toEqual(['start']); // over 15 days back
    expect(fieldsOf({ start: '2026-11-26T10:00:00Z', period: '60' })).toEqual(['period']); // 2 days of minutes
  });

  it('always aligns to its period and never holds more than the limit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 14 * 24 * 3600 }), fc.integer({ min: 1, max: 14 * 24 * 3600 }), (back, len) => {
        const start = new Date(now - back * 1000).toISOString();
        const end = new Date(now - back * 1000 + len * 1000).toISOString();
        const r = metricsWindow({ start, end }, now);
        if (!r.ok) return r.issues[0]!.field === 'period';
        const { window: w } = r;
        return w.start % w.period === 0 && w.end % w.period === 0 && (w.end - w.start) / w.period <= MAX_PERIODS;
      }),
    );
  });
});

describe('simulated metrics', () => {
  const nowS = Date.parse('2026-11-28T10:17:31Z') / 1000;
  const window = { metrics: METRIC_NAMES, start: nowS - 7200 - (nowS % 60), end: nowS + 60 - (nowS % 60), period: 60 as const };

  it('are the same on every request and stay in their bounds', () => {
    const a = simulatedMetrics('dep_1', 'small', window, [{ from: 0, to: null }], nowS);
    const b = simulatedMetrics('dep_1', 'small', window, [{ from: 0, to: null }], nowS + 3600);
    const byMetric = (s: typeof a) => Object.fromEntries(s.map((x) => [x.metric, x.points]));
    const [pa, pb] = [byMetric(a), byMetric(b)];
    // Every period ended at the first request answers the same at a later one.
    expect(pb.cpu_utilization!.slice(0, pa.cpu_utilization!.length)).toEqual(pa.cpu_utilization);
    for (const [i, p] of pa.http_requests!.entries()) {
      expect(Number.isInteger(p.value) && p.value >= 0).toBe(true);
      expect(pa.http_errors![i]!.value).toBeLessThanOrEqual(p.value);
    }
    for (const m of ['cpu_utilization', 'memory_utilization'] as const) for (const p of pa[m]!) expect(p.value).toBeGreaterThanOrEqual(0);
    for (const m of ['cpu_utilization', 'memory_utilization'] as const) for (const p of pa[m]!) expect(p.value).toBeLessThanOrEqual(100);
  });

  it('have points only for ended periods in which the deployment ran', () => {
    const ranFrom = window.start + 1800;
    const [cpu] = simulatedMetrics(
      'dep_1',
      'small',
      { ...window, metrics: ['cpu_utilization'] },
      [{ from: ranFrom, to: ranFrom + 600 }],
      nowS,
    );
    expect(cpu!.points.map((p) => p.time)).toEqual(Array.from({ length: 10 }, (_, i) => ranFrom + i * 60));
    const [live] = simulatedMetrics('dep_1', 'small', { ...window, metrics: ['cpu_utilization'] }, [{ from: 0, to: null }], nowS);
    expect(live!.points.at(-1)!.time + 60).toBeLessThanOrEqual(nowS);
  });

  it('show the size in CPU', () => {
    const mean = (size: string) => {
      const [cpu] = simulatedMetrics('dep_1', size, { ...window, metrics: ['cpu_utilization'] }, [{ from: 0, to: null }], nowS);
      return cpu!.points.reduce((s, p) => s + p.value, 0) / cpu!.points.length;
    };
    expect(mean('small')).toBeGreaterThan(mean('large'));
  });
});
