/** The operation workflow: the executions AWS counts, and the operations the service counts by type. */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { OPERATION_TYPES } from '../../../contract/vocabulary.js';
import { chunks } from '../service-metrics.js';
import { ALARM_METRICS_MAX, type AlarmKit, HOUR, mathId, PERIOD, THRESHOLDS } from './alarms.js';

/** The series the dashboard graphs beside the alarms. */
export interface WorkflowSignals {
  readonly workflowFailureRate: cloudwatch.MathExpression;
  /** Per operation type: OperationsFailed in percent of OperationsStarted, hourly. */
  readonly opsFailureShare: ReadonlyMap<string, cloudwatch.MathExpression>;
}

/** Tickets on failed and timed-out executions and on each operation type's failure share. */
export function workflowAlarms(kit: AlarmKit, stateMachine: sfn.StateMachine): WorkflowSignals {
  const { child, metric } = kit;
  const executions = {
    failed: stateMachine.metricFailed({ statistic: 'Sum', period: HOUR }),
    succeeded: stateMachine.metricSucceeded({ statistic: 'Sum', period: HOUR }),
    aborted: stateMachine.metricAborted({ statistic: 'Sum', period: HOUR }),
    timedOut: stateMachine.metricTimedOut({ statistic: 'Sum', period: HOUR }),
  };
  const ended = Object.keys(executions)
    .map((k) => `FILL(${k}, 0)`)
    .join(' + ');
  const workflowFailureRate = new cloudwatch.MathExpression({
    expression: `IF(FILL(failed, 0) >= ${THRESHOLDS.failedMinimum}, 100 * FILL(failed, 0) / (${ended}), 0)`,
    usingMetrics: executions,
    label: 'failed executions, % of ended',
    period: HOUR,
  });
  child(
    'WorkflowFailureRate',
    'ticket',
    workflowFailureRate,
    `At least ${THRESHOLDS.workflowFailedPercent}% of the workflow executions that ended within an hour failed (${THRESHOLDS.failedMinimum} or more)`,
    { threshold: THRESHOLDS.workflowFailedPercent },
  );
  child(
    'WorkflowTimedOut',
    'ticket',
    stateMachine.metricTimedOut({ statistic: 'Sum', period: PERIOD }),
    "A workflow execution hit the state machine's timeout",
    { threshold: 1 },
  );

  const opsFailureShare = new Map<string, cloudwatch.MathExpression>();
  OPERATION_TYPES.forEach((type, i) => {
    const [f, s] = [`failed${i}`, `started${i}`];
    opsFailureShare.set(
      type,
      new cloudwatch.MathExpression({
        // An hour's failures may come from operations started the hour before: the share is capped at 100%.
        expression: `IF(FILL(${f}, 0) >= ${THRESHOLDS.failedMinimum}, 100 * FILL(${f}, 0) / MAX([FILL(${s}, 0), FILL(${f}, 0)]), 0)`,
        usingMetrics: {
          [f]: metric('operationsFailed', { operation_type: type }, { statistic: 'Sum', period: HOUR }),
          [s]: metric('operationsStarted', { operation_type: type }, { statistic: 'Sum', period: HOUR }),
        },
        label: type,
        period: HOUR,
      }),
    );
  });
  // Two metrics per type: as many types as fit in one alarm's ten.
  const typeRuns = chunks(OPERATION_TYPES, ALARM_METRICS_MAX / 2);
  typeRuns.forEach((run, i) => {
    const using = Object.fromEntries(run.map((type) => [mathId('share', type), opsFailureShare.get(type)!]));
    child(
      typeRuns.length > 1 ? `OperationsFailureRate-${i + 1}` : 'OperationsFailureRate',
      'ticket',
      new cloudwatch.MathExpression({
        expression: `MAX([${Object.keys(using).join(', ')}])`,
        usingMetrics: using,
        label: 'highest failure share of an operation type (%)',
        period: HOUR,
      }),
      `OperationsFailed reached ${THRESHOLDS.operationsFailedPercent}% of OperationsStarted within an hour (${THRESHOLDS.failedMinimum} or more failed) for one of: ${run.join(', ')}`,
      { threshold: THRESHOLDS.operationsFailedPercent },
    );
  });
  return { workflowFailureRate, opsFailureShare };
}
