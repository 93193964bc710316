/**
 * The ECS platform's alarms (decision 287), made only when the stage runs `platform=ecs`: what an
 * operator of the shared platform acts on, each a ticket (one customer's broken application
 * must not page). The platform stack's resources are reached by their deterministic names
 * (infra/aws/platform/names.ts), or, for an ALB's metric dimension, through the SSM parameter it writes.
 */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { PlatformNames } from '../platform/names.js';
import { type AlarmKit, PERIOD } from './alarms.js';

export interface PlatformAlarmTargets {
  readonly names: PlatformNames;
  /** Each ALB shard's `app/<name>/<id>`, in shard order. */
  readonly loadBalancerFullNames: readonly string[];
}

/** The platform's thresholds; docs/platform.md's runbook states the same numbers. */
export const PLATFORM_THRESHOLDS = {
  /** 5xx answers the ALB itself gave (no healthy target, target timeouts) in five minutes, two periods of three. */
  elb5xxPer5Minutes: 50,
  /** Targets unhealthy in any target group of a shard, three five-minute periods in a row. */
  unhealthyTargets: 1,
  /** Aurora's capacity in use, in percent of its maximum ACU, three periods in a row. */
  dbAcuPercent: 80,
  /** Tasks ECS could not place or start (capacity, quotas) in five minutes. */
  placementFailures: 1,
} as const;

export function platformAlarms(kit: AlarmKit, t: PlatformAlarmTargets): cloudwatch.Alarm[] {
  const made: cloudwatch.Alarm[] = [];
  t.loadBalancerFullNames.forEach((lb, i) => {
    const shard = i + 1;
    made.push(
      kit.child(
        `PlatformShard${shard}LoadBalancer5xx`,
        'ticket',
        new cloudwatch.Metric({
          namespace: 'AWS/ApplicationELB',
          metricName: 'HTTPCode_ELB_5XX_Count',
          dimensionsMap: { LoadBalancer: lb },
          statistic: 'Sum',
          period: PERIOD,
        }),
        `ALB shard ${shard} answered ${PLATFORM_THRESHOLDS.elb5xxPer5Minutes} or more 5xx of its own in five minutes, twice in fifteen`,
        { threshold: PLATFORM_THRESHOLDS.elb5xxPer5Minutes, evaluationPeriods: 3, datapointsToAlarm: 2 },
      ),
      kit.child(
        `PlatformShard${shard}UnhealthyTargets`,
        'ticket',
        new cloudwatch.MathExpression({
          expression: `SELECT MAX(UnHealthyHostCount) FROM SCHEMA("AWS/ApplicationELB", LoadBalancer, TargetGroup) WHERE LoadBalancer = '${lb}'`,
          usingMetrics: {},
          period: PERIOD,
          label: `Unhealthy targets, shard ${shard}`,
        }),
        `A deployment on ALB shard ${shard} has had an unhealthy target for fifteen minutes`,
        { threshold: PLATFORM_THRESHOLDS.unhealthyTargets, evaluationPeriods: 3 },
      ),
    );
  });
  made.push(
    kit.child(
      'PlatformDatabaseCapacity',
      'ticket',
      new cloudwatch.Metric({
        namespace: 'AWS/RDS',
        metricName: 'ACUUtilization',
        dimensionsMap: { DBClusterIdentifier: t.names.dbCluster },
        statistic: 'Average',
        period: PERIOD,
      }),
      `The shared Aurora cluster has used ${PLATFORM_THRESHOLDS.dbAcuPercent}% or more of its maximum capacity for fifteen minutes`,
      { threshold: PLATFORM_THRESHOLDS.dbAcuPercent, evaluationPeriods: 3 },
    ),
    kit.child(
      'PlatformTaskPlacementFailures',
      'ticket',
      new cloudwatch.Metric({
        namespace: 'AWS/Events',
        metricName: 'TriggeredRules',
        dimensionsMap: { RuleName: t.names.placementFailureRule },
        statistic: 'Sum',
        period: PERIOD,
      }),
      'ECS could not place or start a deployment task (Fargate capacity, a vCPU quota, an image pull)',
      { threshold: PLATFORM_THRESHOLDS.placementFailures },
    ),
  );
  return made;
}
