/**
 * What every alarm family of the monitoring shares (decisions 190-195): the periods, the
 * thresholds, and the kit a family makes its child alarms and catalogue metrics with.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import type { DimensionsOf, MetricKey } from '../../../contract/metric-catalogue.js';
import { type CatalogueMetricOptions, catalogueMetric } from '../service-metrics.js';

export const PERIOD = Duration.minutes(5);
export const QUARTER = Duration.minutes(15);
export const HOUR = Duration.hours(1);

/** CloudWatch reads at most 10 metrics in one alarm (a hard limit; expressions do not count). */
export const ALARM_METRICS_MAX = 10;

/** Which composite alarm a child alarm feeds. */
export type Severity = 'page' | 'ticket';

/** Every threshold in one place (decision 193); docs/deploy.md's runbook states the same numbers. */
export const THRESHOLDS = {
  /** Share of a route group's (or the whole API's) answers that are 5xx, in percent… */
  server5xxPercent: 5,
  /** …with at least this many 5xx answers in the five minutes, so that 1 failure in 2 requests does not page. */
  route5xxMinimum: 3,
  /** p99 of RequestLatency per route group, three five-minute periods in a row. */
  latencyP99Ms: 2000,
  /** A function's longest run in five minutes, in percent of its timeout. */
  durationPercentOfTimeout: 80,
  /** Failed executions, in percent of those that ended within the hour, at least 3 of them. */
  workflowFailedPercent: 20,
  /** OperationsFailed in percent of OperationsStarted, per type within the hour, at least 3 failed. */
  operationsFailedPercent: 25,
  failedMinimum: 3,
  /** Delivery attempts that did not deliver, in percent, in two quarter-hours in a row, at least 5 each. */
  webhookFailedPercent: 25,
  webhookFailedMinimum: 5,
  /** The oldest message of the delivery queue: above any delay the deliverer sets itself (SQS's 15 minutes). */
  deliveryQueueAgeSeconds: 30 * 60,
  /** How far behind the table's stream the dispatcher may fall. */
  iteratorAgeMs: 5 * 60 * 1000,
  /** Requests the API's web ACL blocked in five minutes, two periods of three. */
  wafBlockedPer5Minutes: 500,
} as const;

export interface ChildAlarm {
  readonly alarm: cloudwatch.Alarm;
  readonly severity: Severity;
}

export interface ChildAlarmOptions {
  readonly threshold: number;
  readonly evaluationPeriods?: number;
  readonly datapointsToAlarm?: number;
}

/** What an alarm family is given: the scope its alarms live in, the stage's catalogue metrics, and the child alarm maker. */
export interface AlarmKit {
  /** The Monitoring construct: every alarm is its child, so the alarms' logical ids do not depend on which family made them. */
  readonly scope: Construct;
  readonly stage: string;
  metric<K extends MetricKey>(key: K, dimensions: DimensionsOf<K>, options: CatalogueMetricOptions): cloudwatch.Metric;
  /** A child alarm: no action of its own, it feeds the composite of its severity. */
  child(alarmId: string, severity: Severity, watched: cloudwatch.IMetric, description: string, opts: ChildAlarmOptions): cloudwatch.Alarm;
}

/** The kit for one Monitoring construct; every child alarm made with it is appended to `children`, in order. */
export function alarmKit(scope: Construct, stage: string, namePrefix: string, children: ChildAlarm[]): AlarmKit {
  return {
    scope,
    stage,
    metric: (key, dimensions, options) => catalogueMetric(stage, key, dimensions, options),
    child: (alarmId, severity, watched, description, opts) => {
      const alarm = new cloudwatch.Alarm(scope, alarmId, {
        alarmName: `${namePrefix}-${alarmId}`,
        metric: watched,
        threshold: opts.threshold,
        evaluationPeriods: opts.evaluationPeriods ?? 1,
        datapointsToAlarm: opts.datapointsToAlarm,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        // No actions: only the composite alarms notify (decision 190).
        alarmDescription: `${description} (${stage}; feeds ${severity === 'page' ? 'ServiceUnhealthy' : 'ServiceDegraded'}; runbook in docs/deploy.md)`,
      });
      Validations.of(alarm).acknowledge({
        id: 'cdk-validator-cfnguard::cloudwatch_alarm_action_check',
        reason:
          'A child alarm has no action by design (decision 190): it feeds the composite ServiceUnhealthy or ServiceDegraded, the only alarms that notify the alarm topic, so that one state change sends one notification instead of one per child.',
      });
      children.push({ alarm, severity });
      return alarm;
    },
  };
}

/** A metric-math identifier from a route group or function name (`openapi.json` → `openapi_json`). */
export const mathId = (prefix: string, name: string): string => `${prefix}_${name.replace(/[^A-Za-z0-9]/g, '_')}`;
