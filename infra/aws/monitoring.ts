/**
 * Alarms (to one SNS topic, optionally mailed) and a dashboard for the whole service:
 * API 5xx rate, Lambda errors and throttles per function, failed and timed-out
 * workflow executions, DynamoDB throttling, webhook dead letters and the stream
 * dispatcher falling behind.
 */
import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { pascalCase, type ServiceFunction } from './functions.js';
import type { Settings } from './settings.js';

const PERIOD = Duration.minutes(5);

export interface MonitoringProps {
  readonly settings: Settings;
  readonly api: apigw.RestApi;
  readonly functions: readonly ServiceFunction[];
  readonly stateMachine: sfn.StateMachine;
  readonly table: dynamodb.Table;
  readonly webhooks: {
    /** Dead letters of the delivery queue and failed stream batches of the dispatcher. */
    readonly deadLetterQueue: sqs.IQueue;
    /** The function reading the table's stream. */
    readonly dispatcher: lambda.IFunction;
  };
}

/** How far behind the table's stream the dispatcher may fall before it alarms. */
export const ITERATOR_AGE_ALARM_MS = 5 * 60 * 1000;

export class Monitoring extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { settings, api, functions, stateMachine, table, webhooks } = props;

    this.topic = new sns.Topic(this, 'AlarmTopic', { displayName: `Deployment API alarms (${settings.stage})`, enforceSSL: true });
    if (settings.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(settings.alarmEmail));
    const action = new cwActions.SnsAction(this.topic);
    const alarm = (
      alarmId: string,
      metric: cloudwatch.IMetric,
      description: string,
      opts: { threshold?: number; evaluationPeriods?: number; datapointsToAlarm?: number } = {},
    ) => {
      const a = new cloudwatch.Alarm(this, alarmId, {
        metric,
        threshold: opts.threshold ?? 1,
        evaluationPeriods: opts.evaluationPeriods ?? 1,
        datapointsToAlarm: opts.datapointsToAlarm,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `${description} (${settings.stage})`,
      });
      a.addAlarmAction(action);
      a.addOkAction(action);
      this.alarms.push(a);
      return a;
    };

    // 5XXError's average is the share of requests answered with a 5xx.
    const api5xxRate = api.deploymentStage.metricServerError({ statistic: 'Average', period: PERIOD });
    alarm('Api5xxRate', api5xxRate, 'At least 5% of API requests answered 5xx in 2 of the last 3 five-minute periods', {
      threshold: 0.05,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });

    for (const f of functions) {
      const id = pascalCase(f.name);
      alarm(`${id}Errors`, f.fn.metricErrors({ statistic: 'Sum', period: PERIOD }), `Lambda ${f.name} raised errors`);
      alarm(`${id}Throttles`, f.fn.metricThrottles({ statistic: 'Sum', period: PERIOD }), `Lambda ${f.name} was throttled`);
    }

    alarm('WorkflowFailed', stateMachine.metricFailed({ statistic: 'Sum', period: PERIOD }), 'Operation workflow executions failed');
    alarm('WorkflowTimedOut', stateMachine.metricTimedOut({ statistic: 'Sum', period: PERIOD }), 'Operation workflow executions timed out');

    const dynamoThrottles = new cloudwatch.MathExpression({
      expression: 'reads + writes',
      usingMetrics: {
        reads: table.metric('ReadThrottleEvents', { statistic: 'Sum', period: PERIOD }),
        writes: table.metric('WriteThrottleEvents', { statistic: 'Sum', period: PERIOD }),
      },
      label: 'Throttled reads + writes',
      period: PERIOD,
    });
    alarm('TableThrottles', dynamoThrottles, 'DynamoDB throttled requests on the table');

    const deadLetters = webhooks.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD });
    alarm('WebhookDeadLetters', deadLetters, 'Webhook deliveries or stream batches reached the dead-letter queue');
    const iteratorAge = webhooks.dispatcher.metric('IteratorAge', { statistic: 'Maximum', period: PERIOD });
    alarm('DispatchIteratorAge', iteratorAge, 'dispatch-events is more than 5 minutes behind the table stream', {
      threshold: ITERATOR_AGE_ALARM_MS,
    });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new cloudwatch.GraphWidget({
            title: 'API requests and errors',
            left: [
              api.deploymentStage.metricCount({ statistic: 'Sum', period: PERIOD, label: 'requests' }),
              api.deploymentStage.metricClientError({ statistic: 'Sum', period: PERIOD, label: '4xx' }),
              api.deploymentStage.metricServerError({ statistic: 'Sum', period: PERIOD, label: '5xx' }),
            ],
            width: 8,
          }),
          new cloudwatch.GraphWidget({
            title: 'API latency (ms)',
            left: [
              api.deploymentStage.metricLatency({ statistic: 'p50', period: PERIOD, label: 'p50' }),
              api.deploymentStage.metricLatency({ statistic: 'p99', period: PERIOD, label: 'p99' }),
              api.deploymentStage.metricIntegrationLatency({ statistic: 'p99', period: PERIOD, label: 'integration p99' }),
            ],
            width: 8,
          }),
          new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 8, height: 6 }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Lambda errors',
            left: functions.map((f) => f.fn.metricErrors({ statistic: 'Sum', period: PERIOD, label: f.name })),
            width: 8,
          }),
          new cloudwatch.GraphWidget({
            title: 'Lambda duration p99 (ms)',
            left: functions.map((f) => f.fn.metricDuration({ statistic: 'p99', period: PERIOD, label: f.name })),
            width: 8,
          }),
          new cloudwatch.GraphWidget({
            title: 'Lambda throttles',
            left: functions.map((f) => f.fn.metricThrottles({ statistic: 'Sum', period: PERIOD, label: f.name })),
            width: 8,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Operation workflow executions',
            left: [
              stateMachine.metricStarted({ statistic: 'Sum', period: PERIOD, label: 'started' }),
              stateMachine.metricSucceeded({ statistic: 'Sum', period: PERIOD, label: 'succeeded' }),
              stateMachine.metricFailed({ statistic: 'Sum', period: PERIOD, label: 'failed' }),
              stateMachine.metricAborted({ statistic: 'Sum', period: PERIOD, label: 'aborted (canceled)' }),
              stateMachine.metricTimedOut({ statistic: 'Sum', period: PERIOD, label: 'timed out' }),
            ],
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'DynamoDB',
            left: [
              table.metricConsumedReadCapacityUnits({ statistic: 'Sum', period: PERIOD, label: 'read units' }),
              table.metricConsumedWriteCapacityUnits({ statistic: 'Sum', period: PERIOD, label: 'write units' }),
            ],
            right: [dynamoThrottles],
            width: 12,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Webhook dead letters',
            left: [deadLetters],
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'dispatch-events stream iterator age (ms)',
            left: [iteratorAge],
            width: 12,
          }),
        ],
      ],
    });
  }
}
