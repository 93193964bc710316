/**
 * The ECS driver's health rules (functions/core/platform-ecs-monitoring.ts): what the
 * service, its tasks' container health checks, its load balancer targets and the Data API
 * say of each component of decision 48, with the reason in the message.
 */
import fc from 'fast-check';
import { rollUp } from '../../functions/core/health.js';
import { METRIC_NAMES } from '../../functions/core/metrics-range.js';
import {
  albDimensions,
  ecsHealth,
  type HealthObservations,
  type MetricResult,
  metricQueries,
  metricSeriesOf,
} from '../../functions/core/platform-ecs-monitoring.js';

const AIRFLOW = ['webserver', 'scheduler', 'dag-processor', 'triggerer'];
const task = (over: Record<string, string> = {}, names = AIRFLOW) => ({
  lastStatus: 'RUNNING',
  containers: names.map((name) => ({ name, healthStatus: over[name] ?? 'HEALTHY' })),
});
const healthy = (over: Partial<HealthObservations> = {}): HealthObservations => ({
  service: { status: 'ACTIVE', desiredCount: 1, runningCount: 1, rolloutState: 'COMPLETED' },
  tasks: [task()],
  targets: [{ state: 'healthy' }],
  database: { ok: true },
  ...over,
});
const statuses = (o: HealthObservations, app: 'airflow' | 'superset' = 'airflow') =>
  Object.fromEntries(ecsHealth(app, o).map((c) => [c.name, c.status]));

describe('ECS health (decision 48)', () => {
  it('is every component healthy, in decision 48 order, for a running service with healthy containers and targets', () => {
    expect(ecsHealth('airflow', healthy())).toEqual(
      ['webserver', 'scheduler', 'dag_processor', 'triggerer', 'metadata_db'].map((name) => ({ name, status: 'healthy', message: null })),
    );
    expect(ecsHealth('superset', healthy({ tasks: [task({}, ['superset'])] })).map((c) => [c.name, c.status])).toEqual([
      ['webserver', 'healthy'],
      ['metadata_db', 'healthy'],
    ]);
  });

  it('names the container whose health check fails, and only its component', () => {
    const out = ecsHealth('airflow', healthy({ tasks: [task({ 'dag-processor': 'UNHEALTHY' }), task()] }));
    expect(out.find((c) => c.name === 'dag_processor')).toEqual({
      name: 'dag_processor',
      status: 'unhealthy',
      message: "The dag-processor container's health check fails (UNHEALTHY in 1 of 2 running tasks).",
    });
    expect(rollUp(out)).toBe('degraded');
    expect(rollUp(ecsHealth('airflow', healthy({ tasks: [task({ scheduler: 'UNHEALTHY' })] })))).toBe('unhealthy');
  });

  it('says how many tasks run when none does, with the rollout failure, for every app component; the database apart', () => {
    const out = ecsHealth(
      'airflow',
      healthy({
        service: { status: 'ACTIVE', desiredCount: 1, runningCount: 0, rolloutState: 'FAILED', rolloutStateReason: 'circuit breaker' },
        tasks: [],
      }),
    );
    expect(out.slice(0, 4).map((c) => [c.status, c.message])).toEqual(Array(4).fill(['unhealthy', '0 of 1 task running. circuit breaker']));
    expect(out[4]).toEqual({ name: 'metadata_db', status: 'healthy', message: null });
    expect(statuses(healthy({ service: undefined }))).toMatchObject({ webserver: 'unhealthy', triggerer: 'unhealthy' });
    expect(ecsHealth('superset', healthy({ service: undefined }))[0]!.message).toBe("The application's ECS service is missing.");
  });

  it('makes the webserver unhealthy when no load balancer target is healthy, saying why', () => {
    expect(ecsHealth('airflow', healthy({ targets: [] }))[0]).toEqual({
      name: 'webserver',
      status: 'unhealthy',
      message: 'No task is registered with the load balancer.',
    });
    expect(
      ecsHealth('airflow', healthy({ targets: [{ state: 'unhealthy', description: 'Health checks failed with these codes: [502]' }] }))[0]!
        .message,
    ).toBe('0 of 1 load balancer target healthy: Health checks failed with these codes: [502]');
    expect(statuses(healthy({ targets: [{ state: 'unhealthy' }, { state: 'healthy' }] })).webserver).toBe('healthy');
  });

  it('is unknown while a container health check has not reported, and the database as the Data API says', () => {
    const out = ecsHealth('airflow', healthy({ tasks: [task({ triggerer: 'UNKNOWN' })], database: { ok: false, message: 'gone' } }));
    expect(out.find((c) => c.name === 'triggerer')).toMatchObject({ status: 'unknown', message: expect.stringMatching(/not reported/) });
    expect(out.at(-1)).toEqual({ name: 'metadata_db', status: 'unhealthy', message: 'gone' });
  });

  it('never reports a component healthy unless its container is HEALTHY in every running task', () => {
    const status = fc.constantFrom('HEALTHY', 'UNHEALTHY', 'UNKNOWN');
    fc.assert(
      fc.property(fc.array(fc.record({ scheduler: status, webserver: status }), { minLength: 1, maxLength: 3 }), (tasks) => {
        const out = statuses(healthy({ tasks: tasks.map((t) => task(t)) }));
        for (const c of ['scheduler', 'webserver'] as const) expect(out[c] === 'healthy').toBe(tasks.every((t) => t[c] === 'HEALTHY'));
      }),
    );
  });
});

describe('ECS metrics (decision 49)', () => {
  const TG = 'arn:aws:elasticloadbalancing:us-east-1:1:targetgroup/dabc/0123456789abcdef';
  const LB = 'arn:aws:elasticloadbalancing:us-east-1:1:loadbalancer/app/platform-1/fedcba9876543210';
  const dims = { clusterName: 'deployments', serviceName: 'airflow-abc', ...albDimensions(TG, LB) };
  const window = { metrics: [...METRIC_NAMES], start: 6000, end: 6600, period: 60 as const };

  it('asks for all five from the service and the target group, at the period asked, p95 for response time', () => {
    expect(albDimensions(TG, LB)).toEqual({
      targetGroup: 'targetgroup/dabc/0123456789abcdef',
      loadBalancer: 'app/platform-1/fedcba9876543210',
    });
    const q = metricQueries(window, dims);
    expect(
      q.map((x) => [x.Id, x.MetricStat.Metric.Namespace, x.MetricStat.Metric.MetricName, x.MetricStat.Stat, x.MetricStat.Period]),
    ).toEqual([
      ['cpu_utilization', 'AWS/ECS', 'CPUUtilization', 'Average', 60],
      ['memory_utilization', 'AWS/ECS', 'MemoryUtilization', 'Average', 60],
      ['http_requests', 'AWS/ApplicationELB', 'RequestCount', 'Sum', 60],
      ['http_errors', 'AWS/ApplicationELB', 'HTTPCode_Target_5XX_Count', 'Sum', 60],
      ['response_time_p95', 'AWS/ApplicationELB', 'TargetResponseTime', 'p95', 60],
    ]);
    expect(q[0]!.MetricStat.Metric.Dimensions).toEqual([
      { Name: 'ClusterName', Value: 'deployments' },
      { Name: 'ServiceName', Value: 'airflow-abc' },
    ]);
    expect(q[2]!.MetricStat.Metric.Dimensions.map((d) => d.Name)).toEqual(['TargetGroup', 'LoadBalancer']);
    expect(metricQueries(window, { clusterName: 'c', serviceName: 's' }).map((x) => x.Id)).toEqual([
      'cpu_utilization',
      'memory_utilization',
    ]);
  });

  it('maps units and bounds: percent clamped, counts whole with a missing count 0, errors at most requests, seconds to ms', () => {
    const results: MetricResult[] = [
      { id: 'cpu_utilization', times: [6000, 6060], values: [12.345, 130] },
      { id: 'memory_utilization', times: [6060], values: [-1] },
      { id: 'http_requests', times: [6000], values: [10.4] },
      { id: 'http_errors', times: [6000, 6060], values: [12, 3] },
      { id: 'response_time_p95', times: [6000], values: [0.2504] },
    ];
    const out = metricSeriesOf({ ...window, end: 6120 }, results, [{ from: 0, to: null }], 7000);
    const points = Object.fromEntries(out.map((s) => [s.metric, s.points]));
    expect(points).toEqual({
      cpu_utilization: [
        { time: 6000, value: 12.3 },
        { time: 6060, value: 100 },
      ],
      memory_utilization: [{ time: 6060, value: 0 }],
      http_requests: [
        { time: 6000, value: 10 },
        { time: 6060, value: 0 },
      ],
      http_errors: [
        { time: 6000, value: 10 },
        { time: 6060, value: 0 },
      ],
      response_time_p95: [{ time: 6000, value: 250.4 }],
    });
    expect(out.map((s) => s.unit)).toEqual(['percent', 'percent', 'count', 'count', 'milliseconds']);
  });

  it('has points only for ended periods the deployment ran in, in the order of the metrics asked', () => {
    const full: MetricResult[] = METRIC_NAMES.map((id) => ({ id, times: [6000, 6060, 6120, 6180], values: [1, 1, 1, 1] }));
    const out = metricSeriesOf(
      { metrics: ['http_requests', 'cpu_utilization'], start: 6000, end: 6240, period: 60 },
      full,
      [{ from: 6070, to: 6130 }],
      6180,
    );
    expect(out.map((s) => [s.metric, s.points.map((p) => p.time)])).toEqual([
      ['http_requests', [6060, 6120]],
      ['cpu_utilization', [6060, 6120]],
    ]);
    // 6180's period has not ended at 6180 + 59.
    expect(metricSeriesOf({ ...window, start: 6180, end: 6240 }, full, [{ from: 0, to: null }], 6239)[0]!.points).toEqual([]);
  });

  it('never answers more errors than requests, nor a value out of bounds, whatever CloudWatch says', () => {
    const value = fc.double({ min: -1e6, max: 1e6, noNaN: true });
    fc.assert(
      fc.property(fc.array(fc.tuple(value, value, value, value), { minLength: 1, maxLength: 5 }), (rows) => {
        const times = rows.map((_, i) => 6000 + i * 60);
        const col = (i: number) => rows.map((r) => r[i]!);
        const out = metricSeriesOf(
          { ...window, end: 6000 + rows.length * 60 },
          [
            { id: 'cpu_utilization', times, values: col(0) },
            { id: 'http_requests', times, values: col(1) },
            { id: 'http_errors', times, values: col(2) },
            { id: 'response_time_p95', times, values: col(3) },
          ],
          [{ from: 0, to: null }],
          1e9,
        );
        const by = Object.fromEntries(out.map((s) => [s.metric, s.points]));
        by.http_errors!.forEach((p, i) => {
          expect(p.value).toBeLessThanOrEqual(by.http_requests![i]!.value);
          expect(Number.isInteger(p.value) && p.value >= 0).toBe(true);
        });
        for (const p of by.cpu_utilization!) expect(p.value >= 0 && p.value <= 100).toBe(true);
        for (const p of by.response_time_p95!) expect(p.value).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
