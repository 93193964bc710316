/** The table: DynamoDB throttling reads or writes. */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { type AlarmKit, PERIOD } from './alarms.js';

/** The series the dashboard graphs beside the alarm. */
export interface TableSignals {
  readonly tableThrottles: cloudwatch.MathExpression;
}

/** A ticket on any throttled read or write. */
export function tableAlarms(kit: AlarmKit, table: dynamodb.ITable): TableSignals {
  const tableThrottles = new cloudwatch.MathExpression({
    expression: 'FILL(reads, 0) + FILL(writes, 0)',
    usingMetrics: {
      reads: table.metric('ReadThrottleEvents', { statistic: 'Sum', period: PERIOD }),
      writes: table.metric('WriteThrottleEvents', { statistic: 'Sum', period: PERIOD }),
    },
    label: 'throttled reads + writes',
    period: PERIOD,
  });
  kit.child('TableThrottles', 'ticket', tableThrottles, 'DynamoDB throttled reads or writes on the table', { threshold: 1 });
  return { tableThrottles };
}
