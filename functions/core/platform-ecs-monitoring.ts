/**
 * What the ECS driver's observations of a deployment mean for its health (decision 48) and
 * its metrics (decision 49), pure. A Lambda outside the VPC cannot reach the application's
 * own health endpoint, so health is what AWS reports: the service's running tasks, each
 * container's health check (the task definition declares one per container), the load
 * balancer's targets, and a query of the metadata database through the Data API. The
 * adapter (adapters/platform/ecs/monitoring.ts) reads; this decides.
 */
import type { AppType } from '../../contract/vocabulary.js';
import type { ComponentObservation } from './health.js';
import {
  METRIC_NAMES,
  METRIC_UNITS,
  type MetricName,
  type MetricSeries,
  type MetricsWindow,
  periodStarts,
  type RunInterval,
} from './metrics-range.js';

/** Which container of the task stands for which component. */
export const COMPONENT_CONTAINERS: Record<AppType, Readonly<Record<string, string>>> = {
  airflow: { webserver: 'webserver', scheduler: 'scheduler', dag_processor: 'dag-processor', triggerer: 'triggerer' },
  superset: { webserver: 'superset' },
};

export interface HealthObservations {
  /** DescribeServices' answer; undefined when the service is missing. */
  service?: { status: string; desiredCount: number; runningCount: number; rolloutState?: string; rolloutStateReason?: string };
  /** The service's tasks (DescribeTasks): each container's health check status (HEALTHY, UNHEALTHY, UNKNOWN). */
  tasks: { lastStatus: string; containers: { name: string; healthStatus?: string }[] }[];
  /** The target group's targets (DescribeTargetHealth). */
  targets: { state: string; reason?: string; description?: string }[];
  /** The metadata database: reachable with the deployment's database in it, or why not. */
  database: { ok: true } | { ok: false; message: string };
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** A container's health over the running tasks: unhealthy in any of them is unhealthy. */
function containerHealth(container: string, running: HealthObservations['tasks']): ComponentObservation['status'] | { message: string } {
  const statuses = running.map((t) => t.containers.find((c) => c.name === container)?.healthStatus ?? 'UNKNOWN');
  const bad = statuses.filter((s) => s === 'UNHEALTHY').length;
  if (bad > 0)
    return {
      message: `The ${container} container's health check fails (UNHEALTHY in ${bad} of ${plural(running.length, 'running task')}).`,
    };
  return statuses.every((s) => s === 'HEALTHY') ? 'healthy' : 'unknown';
}

function webTargets(targets: HealthObservations['targets']): string | null {
  if (targets.length === 0) return 'No task is registered with the load balancer.';
  const healthy = targets.filter((t) => t.state === 'healthy').length;
  if (healthy > 0) return null;
  const why = targets.find((t) => t.description || t.reason);
  return `0 of ${plural(targets.length, 'load balancer target')} healthy${why ? `: ${why.description ?? why.reason}` : '.'}`;
}

/** The components of an app type from what AWS reports (metadata_db last, as decision 48 orders them). */
export function ecsHealth(app: AppType, o: HealthObservations): ComponentObservation[] {
  const db: ComponentObservation = o.database.ok
    ? { name: 'metadata_db', status: 'healthy', message: null }
    : { name: 'metadata_db', status: 'unhealthy', message: o.database.message };
  const containers = Object.entries(COMPONENT_CONTAINERS[app]);
  const all = (message: string): ComponentObservation[] => [
    ...containers.map(([name]) => ({ name, status: 'unhealthy' as const, message })),
    db,
  ];
  const s = o.service;
  if (s?.status !== 'ACTIVE') return all(`The application's ECS service is ${s ? s.status : 'missing'}.`);
  const running = o.tasks.filter((t) => t.lastStatus === 'RUNNING');
  if (running.length === 0) {
    const rollout = s.rolloutState === 'FAILED' && s.rolloutStateReason ? ` ${s.rolloutStateReason}` : '';
    return all(`0 of ${plural(s.desiredCount, 'task')} running.${rollout}`);
  }
  const components = containers.map(([name, container]): ComponentObservation => {
    const health = containerHealth(container, running);
    if (typeof health === 'object') return { name, status: 'unhealthy', message: health.message };
    if (name === 'webserver') {
      const targets = webTargets(o.targets);
      if (targets) return { name, status: 'unhealthy', message: targets };
    }
    return health === 'healthy'
      ? { name, status: 'healthy', message: null }
      : { name, status: 'unknown', message: `The ${container} container's health check has not reported yet.` };
  });
  return [...components, db];
}

/** Where each metric of decision 49 comes from in CloudWatch, and how its value is read. */
export const METRIC_SOURCES: Readonly<
  Record<MetricName, { namespace: 'AWS/ECS' | 'AWS/ApplicationELB'; metric: string; stat: 'Average' | 'Sum' | 'p95' }>
> = {
  cpu_utilization: { namespace: 'AWS/ECS', metric: 'CPUUtilization', stat: 'Average' },
  memory_utilization: { namespace: 'AWS/ECS', metric: 'MemoryUtilization', stat: 'Average' },
  http_requests: { namespace: 'AWS/ApplicationELB', metric: 'RequestCount', stat: 'Sum' },
  http_errors: { namespace: 'AWS/ApplicationELB', metric: 'HTTPCode_Target_5XX_Count', stat: 'Sum' },
  response_time_p95: { namespace: 'AWS/ApplicationELB', metric: 'TargetResponseTime', stat: 'p95' },
};

/** The dimensions a deployment's metrics carry: its service's, and (once it has one) its target group's on its load balancer. */
export interface MetricDimensions {
  clusterName: string;
  serviceName: string;
  /** `app/<name>/<id>` and `targetgroup/<name>/<id>`, the ARNs' tails CloudWatch names them by. */
  loadBalancer?: string;
  targetGroup?: string;
}

/** A target group's and its load balancer's ARNs as CloudWatch's dimensions. */
export const albDimensions = (targetGroupArn: string, loadBalancerArn: string): Pick<MetricDimensions, 'loadBalancer' | 'targetGroup'> => ({
  targetGroup: targetGroupArn.slice(targetGroupArn.lastIndexOf(':') + 1),
  loadBalancer: loadBalancerArn.slice(loadBalancerArn.indexOf(':loadbalancer/') + ':loadbalancer/'.length),
});

/** One query of GetMetricData (its input's shape): its Id is the metric's name. */
export interface MetricQuery {
  Id: MetricName;
  MetricStat: {
    Metric: { Namespace: string; MetricName: string; Dimensions: { Name: string; Value: string }[] };
    Period: number;
    Stat: string;
  };
}

/**
 * The queries of one GetMetricData for the window: every metric of decision 49, so that
 * http_errors can be held to http_requests whichever is asked; the load balancer's only
 * when the deployment has a target group.
 */
export function metricQueries(window: Pick<MetricsWindow, 'period'>, d: MetricDimensions): MetricQuery[] {
  const ecs = [
    { Name: 'ClusterName', Value: d.clusterName },
    { Name: 'ServiceName', Value: d.serviceName },
  ];
  const alb =
    d.loadBalancer && d.targetGroup
      ? [
          { Name: 'TargetGroup', Value: d.targetGroup },
          { Name: 'LoadBalancer', Value: d.loadBalancer },
        ]
      : undefined;
  return METRIC_NAMES.flatMap((id) => {
    const s = METRIC_SOURCES[id];
    const Dimensions = s.namespace === 'AWS/ECS' ? ecs : alb;
    return Dimensions
      ? [
          {
            Id: id,
            MetricStat: { Metric: { Namespace: s.namespace, MetricName: s.metric, Dimensions }, Period: window.period, Stat: s.stat },
          },
        ]
      : [];
  });
}

/** One result of GetMetricData: its Id, and its points' times (Unix seconds, the period's start) and values. */
export interface MetricResult {
  id: string;
  times: number[];
  values: number[];
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const COUNTS: ReadonlySet<MetricName> = new Set(['http_requests', 'http_errors']);

/**
 * CloudWatch's answer as decision 49's series: a point only for a period that has ended
 * and in which the deployment ran (`runs`); percentages held to 0-100, counts whole and
 * ≥ 0 (a load balancer publishes no count for a period without requests: that is 0, not
 * a gap), http_errors never above that period's http_requests, seconds as milliseconds.
 */
export function metricSeriesOf(
  window: MetricsWindow,
  results: readonly MetricResult[],
  runs: readonly RunInterval[],
  nowSeconds: number,
): MetricSeries[] {
  const byId = new Map(results.map((r) => [r.id, new Map(r.times.map((t, i) => [t, r.values[i]!]))]));
  const periods = periodStarts(window).filter(
    (t) => t + window.period <= nowSeconds && runs.some((r) => r.from < t + window.period && (r.to === null || r.to > t)),
  );
  const value = (metric: MetricName, t: number): number | undefined => {
    const raw = byId.get(metric)?.get(t);
    if (COUNTS.has(metric)) {
      if (!byId.has(metric)) return undefined;
      const count = Math.max(0, Math.round(raw ?? 0));
      return metric === 'http_errors' ? Math.min(count, value('http_requests', t) ?? count) : count;
    }
    if (raw === undefined || !Number.isFinite(raw)) return undefined;
    if (metric === 'response_time_p95') return Math.max(0, round1(raw * 1000));
    return Math.min(100, Math.max(0, round1(raw)));
  };
  return window.metrics.map((metric) => ({
    metric,
    unit: METRIC_UNITS[metric],
    points: periods.flatMap((time) => {
      const v = value(metric, time);
      return v === undefined ? [] : [{ time, value: v }];
    }),
  }));
}
