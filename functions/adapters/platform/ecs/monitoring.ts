/**
 * The ECS driver's health (decision 48) and metrics (decision 49) of a ready, awake
 * deployment, each from what AWS reports: health in at most five calls (the service, its
 * tasks listed and described, its target group's health, one query of the metadata
 * database), metrics in one CloudWatch GetMetricData. The rules are
 * core/platform-ecs-monitoring.ts's.
 */
import { DescribeServicesCommand, DescribeTasksCommand, ListTasksCommand } from '@aws-sdk/client-ecs';
import { DescribeTargetHealthCommand } from '@aws-sdk/client-elastic-load-balancing-v2';
import type { ComponentObservation } from '../../../core/health.js';
import type { DeploymentTarget } from '../../../core/platform.js';
import { ecsHealth, type HealthObservations } from '../../../core/platform-ecs-monitoring.js';
import { aws, type EcsContext, errorName } from './context.js';
import { sql } from './database.js';
import { dbName, serviceName } from './names.js';

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
