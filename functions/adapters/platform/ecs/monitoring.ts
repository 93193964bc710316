/**
 * The ECS driver's health (decision 48) and metrics (decision 49) of a ready, awake
 * deployment, each from what AWS reports: health in at most five calls (the service, its
 * tasks listed and described, its target group's health, one query of the metadata
 * database), metrics in one CloudWatch GetMetricData. The rules are
 * core/platform-ecs-monitoring.ts's.
 */
import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeServicesCommand, DescribeTasksCommand, ListTasksCommand } from '@aws-sdk/client-ecs';
import { DescribeTargetGroupsCommand, DescribeTargetHealthCommand } from '@aws-sdk/client-elastic-load-balancing-v2';
import type { ComponentObservation } from '../../../core/health.js';
import type { MetricSeries, MetricsWindow, RunInterval } from '../../../core/metrics-range.js';
import type { DeploymentTarget } from '../../../core/platform.js';
import {
  albDimensions,
  ecsHealth,
  type HealthObservations,
  type MetricDimensions,
  metricQueries,
  metricSeriesOf,
} from '../../../core/platform-ecs-monitoring.js';
import { aws, type EcsContext, errorName, unlessAbsent } from './context.js';
import { sql } from './database.js';
import { dbName, serviceName, targetGroupName } from './names.js';

/** The health check's query: the deployment's database is there and takes connections. */
export const DATABASE_HEALTH_SQL = 'SELECT datallowconn FROM pg_database WHERE datname = :d';

async function database(ctx: EcsContext, deploymentId: string): Promise<HealthObservations['database']> {
  const name = dbName(deploymentId);
  try {
    const rows = await sql(ctx, ctx.settings.dbAdminSecretArn, DATABASE_HEALTH_SQL, { d: name });
    if (rows.length === 0) return { ok: false, message: `The deployment's database ${name} is missing.` };
    return rows[0]![0] === 'false' ? { ok: false, message: `The deployment's database ${name} takes no connections.` } : { ok: true };
  } catch (e) {
    return { ok: false, message: `The metadata database did not answer (${errorName(e) || 'an error'}).` };
  }
}

export async function ecsHealthOf(ctx: EcsContext, target: DeploymentTarget): Promise<ComponentObservation[]> {
  const cluster = ctx.settings.clusterArn;
  const name = serviceName(target.appType, target.deploymentId);
  const [described, db] = await Promise.all([
    aws('looked at the service', () => ctx.aws.ecs.send(new DescribeServicesCommand({ cluster, services: [name] }))),
    database(ctx, target.deploymentId),
  ]);
  const s = described.services?.[0];
  const primary = s?.deployments?.find((d) => d.status === 'PRIMARY');
  const targetGroupArn = s?.loadBalancers?.[0]?.targetGroupArn;
  const [tasks, targets] = await Promise.all([
    (async () => {
      if (s?.status !== 'ACTIVE') return [];
      const listed = await aws('listed the tasks', () =>
        ctx.aws.ecs.send(new ListTasksCommand({ cluster, serviceName: name, desiredStatus: 'RUNNING' })),
      );
      if (!listed.taskArns?.length) return [];
      const out = await aws('looked at the tasks', () => ctx.aws.ecs.send(new DescribeTasksCommand({ cluster, tasks: listed.taskArns })));
      return (out.tasks ?? []).map((t) => ({
        lastStatus: t.lastStatus ?? '',
        containers: (t.containers ?? []).map((c) => ({ name: c.name ?? '', ...(c.healthStatus ? { healthStatus: c.healthStatus } : {}) })),
      }));
    })(),
    (async () => {
      if (!targetGroupArn) return [];
      const out = await aws('looked at the targets', () =>
        ctx.aws.elb.send(new DescribeTargetHealthCommand({ TargetGroupArn: targetGroupArn })),
      );
      return (out.TargetHealthDescriptions ?? []).map((d) => ({
        state: d.TargetHealth?.State ?? 'unknown',
        ...(d.TargetHealth?.Reason ? { reason: d.TargetHealth.Reason } : {}),
        ...(d.TargetHealth?.Description ? { description: d.TargetHealth.Description } : {}),
      }));
    })(),
  ]);
  return ecsHealth(target.appType, {
    ...(s
      ? {
          service: {
            status: s.status ?? 'MISSING',
            desiredCount: s.desiredCount ?? 0,
            runningCount: s.runningCount ?? 0,
            ...(primary?.rolloutState ? { rolloutState: primary.rolloutState } : {}),
            ...(primary?.rolloutStateReason ? { rolloutStateReason: primary.rolloutStateReason } : {}),
          },
        }
      : {}),
    tasks,
    targets,
    database: db,
  });
}

/**
 * Decision 49's series from CloudWatch: the target group looked up by its name (its ARN and
 * its load balancer's name it in CloudWatch), then one GetMetricData over the service's CPU
 * and memory and the target group's requests, 5xx answers and p95 response time.
 */
export async function ecsMetricsOf(
  ctx: EcsContext,
  target: DeploymentTarget,
  window: MetricsWindow,
  runs: readonly RunInterval[],
): Promise<MetricSeries[]> {
  const groups = await unlessAbsent('looked up the target group', ['TargetGroupNotFoundException'], () =>
    ctx.aws.elb.send(new DescribeTargetGroupsCommand({ Names: [targetGroupName(target.deploymentId)] })),
  );
  const group = groups?.TargetGroups?.[0];
  const dims: MetricDimensions = {
    clusterName: ctx.settings.clusterArn.slice(ctx.settings.clusterArn.lastIndexOf('/') + 1),
    serviceName: serviceName(target.appType, target.deploymentId),
    ...(group?.TargetGroupArn && group.LoadBalancerArns?.[0] ? albDimensions(group.TargetGroupArn, group.LoadBalancerArns[0]) : {}),
  };
  const out = await aws('read the metrics', () =>
    ctx.aws.cloudwatch.send(
      new GetMetricDataCommand({
        StartTime: new Date(window.start * 1000),
        EndTime: new Date(window.end * 1000),
        ScanBy: 'TimestampAscending',
        MetricDataQueries: metricQueries(window, dims),
      }),
    ),
  );
  const results = (out.MetricDataResults ?? []).map((r) => ({
    id: r.Id ?? '',
    times: (r.Timestamps ?? []).map((t) => Math.floor(new Date(t).getTime() / 1000)),
    values: r.Values ?? [],
  }));
  return metricSeriesOf(window, results, runs, Math.floor(ctx.now() / 1000));
}
