/** The rows of the service's one dashboard (decision 195): the alarms, then each signal family's graphs. */
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { THROTTLE_REASONS } from '../../../contract/metric-catalogue.js';
import { OPERATION_TYPES, PHASES } from '../../../contract/vocabulary.js';
import type { ServiceFunction } from '../functions.js';
import { type AlarmKit, HOUR, PERIOD, THRESHOLDS } from './alarms.js';
import type { ApiSignals } from './api-alarms.js';
import type { LambdaSignals } from './lambda-alarms.js';
import type { TableSignals } from './table-alarms.js';
import type { WafMetric } from './waf-alarms.js';
import type { WebhookSignals } from './webhook-alarms.js';
import type { WorkflowSignals } from './workflow-alarms.js';

export interface DashboardSources {
  readonly api: { readonly restApi: apigw.RestApi; readonly signals: ApiSignals };
  readonly lambda: { readonly functions: readonly ServiceFunction[]; readonly signals: LambdaSignals };
  readonly workflow: { readonly stateMachine: sfn.StateMachine; readonly signals: WorkflowSignals };
  readonly webhooks: WebhookSignals;
  readonly table: { readonly table: dynamodb.ITable; readonly signals: TableSignals };
  readonly waf: WafMetric | undefined;
  /** Every alarm, composites first, for the status widget. */
  readonly alarms: readonly cloudwatch.IAlarm[];
}

/** The dashboard's widgets, row by row. */
export function dashboardWidgets(kit: AlarmKit, sources: DashboardSources): cloudwatch.IWidget[][] {
  const { stage, metric } = kit;
  const { restApi, signals: api } = sources.api;
  const { functions, signals: lambda } = sources.lambda;
  const { stateMachine, signals: workflow } = sources.workflow;
  const { table, signals: tableSignals } = sources.table;
  const { webhooks, waf } = sources;

  const graph = (title: string, left: cloudwatch.IMetric[], extra: Partial<cloudwatch.GraphWidgetProps> = {}) =>
    new cloudwatch.GraphWidget({ title, left, width: 8, height: 6, ...extra });
  const line = (value: number, label: string): cloudwatch.HorizontalAnnotation => ({ value, label, color: '#d62728' });
  const byType = (key: 'operationsStarted' | 'operationsSucceeded' | 'operationsFailed' | 'operationsCanceled') =>
    OPERATION_TYPES.map((type) => metric(key, { operation_type: type }, { statistic: 'Sum', period: PERIOD, label: type }));
  const phaseDurations = (statistic: string) =>
    OPERATION_TYPES.flatMap((type) =>
      PHASES[type].work.map((phase) =>
        metric('phaseDuration', { operation_type: type, phase }, { statistic, period: HOUR, label: `${type} ${phase}` }),
      ),
    );

  return [
    [
      new cloudwatch.TextWidget({
        markdown: [
          `# Deployment API (${stage})`,
          '**ServiceUnhealthy** pages, **ServiceDegraded** makes a ticket; each reads the child alarms listed here, which notify nobody.',
          "What each alarm means and what to do: the runbook in docs/deploy.md (Alarms and dashboard). Business metrics are the functions' own",
          `(namespace \`DeploymentApi/${stage}\`); the rest is AWS's.`,
        ].join('\n\n'),
        width: 8,
        height: 6,
      }),
      new cloudwatch.AlarmStatusWidget({
        title: 'Alarms',
        alarms: [...sources.alarms],
        width: 16,
        height: 6,
      }),
    ],
    [
      graph('Requests by route group', [...api.routeRequests.values()]),
      graph('5xx by route group (% of answers)', [...api.route5xxRates.values()], {
        leftAnnotations: [line(THRESHOLDS.server5xxPercent, 'alarm')],
      }),
      graph('Request latency p99 by route group (ms)', [...api.routeLatency.values()], {
        leftAnnotations: [line(THRESHOLDS.latencyP99Ms, 'alarm')],
      }),
    ],
    [
      graph('API Gateway requests, 4xx, 5xx', [
        api.apiCount,
        restApi.deploymentStage.metricClientError({ statistic: 'Sum', period: PERIOD, label: '4xx' }),
        api.api5xx,
      ]),
      graph('API Gateway latency (ms)', [
        restApi.deploymentStage.metricLatency({ statistic: 'p50', period: PERIOD, label: 'p50' }),
        restApi.deploymentStage.metricLatency({ statistic: 'p99', period: PERIOD, label: 'p99' }),
        restApi.deploymentStage.metricIntegrationLatency({ statistic: 'p99', period: PERIOD, label: 'integration p99' }),
      ]),
      graph(
        'Requests answered 429, by limit',
        THROTTLE_REASONS.map((reason) => metric('requestsThrottled', { reason }, { statistic: 'Sum', period: PERIOD, label: reason })),
      ),
    ],
    [
      graph(
        'Lambda errors',
        functions.map((f) => f.fn.metricErrors({ statistic: 'Sum', period: PERIOD, label: f.name })),
      ),
      graph(
        'Lambda throttles',
        functions.map((f) => f.fn.metricThrottles({ statistic: 'Sum', period: PERIOD, label: f.name })),
      ),
      graph('Lambda longest run, % of its timeout', [...lambda.durationShare.values()], {
        leftAnnotations: [line(THRESHOLDS.durationPercentOfTimeout, 'alarm')],
        leftYAxis: { min: 0, max: 100 },
      }),
    ],
    [
      graph('Workflow executions', [
        stateMachine.metricStarted({ statistic: 'Sum', period: PERIOD, label: 'started' }),
        stateMachine.metricSucceeded({ statistic: 'Sum', period: PERIOD, label: 'succeeded' }),
        stateMachine.metricFailed({ statistic: 'Sum', period: PERIOD, label: 'failed' }),
        stateMachine.metricAborted({ statistic: 'Sum', period: PERIOD, label: 'aborted (canceled)' }),
        stateMachine.metricTimedOut({ statistic: 'Sum', period: PERIOD, label: 'timed out' }),
      ]),
      graph('Operations started, by type', byType('operationsStarted')),
      graph('Operations succeeded, by type', byType('operationsSucceeded')),
    ],
    [
      graph('Operations failed, by type', byType('operationsFailed')),
      graph('Operations canceled, by type', byType('operationsCanceled')),
      graph('Operations failed, % of started (hourly)', [...workflow.opsFailureShare.values()], {
        leftAnnotations: [line(THRESHOLDS.operationsFailedPercent, 'alarm')],
      }),
    ],
    [
      graph('Phase durations p50 (s, hourly)', phaseDurations('p50')),
      graph('Phase durations p99 (s, hourly)', phaseDurations('p99')),
      graph('Workflow executions failed, % of ended (hourly)', [workflow.workflowFailureRate], {
        leftAnnotations: [line(THRESHOLDS.workflowFailedPercent, 'alarm')],
      }),
    ],
    [
      graph('Webhook delivery attempts, by outcome', Object.values(webhooks.deliveries), {
        right: [webhooks.webhookFailureRate],
        rightAnnotations: [line(THRESHOLDS.webhookFailedPercent, 'alarm (%)')],
      }),
      graph('Webhook delivery latency (ms)', [
        metric('webhookDeliveryLatency', {}, { statistic: 'p50', period: PERIOD, label: 'p50' }),
        metric('webhookDeliveryLatency', {}, { statistic: 'p99', period: PERIOD, label: 'p99' }),
      ]),
      graph('Webhook queues', [webhooks.queueAge, webhooks.deadLetters], {
        right: [webhooks.iteratorAge],
        leftAnnotations: [line(THRESHOLDS.deliveryQueueAgeSeconds, 'queue age alarm (s)')],
      }),
    ],
    [
      graph(
        'DynamoDB',
        [
          table.metricConsumedReadCapacityUnits({ statistic: 'Sum', period: PERIOD, label: 'read units' }),
          table.metricConsumedWriteCapacityUnits({ statistic: 'Sum', period: PERIOD, label: 'write units' }),
        ],
        { right: [tableSignals.tableThrottles] },
      ),
      ...(waf
        ? [
            graph('Web ACL (API)', [waf('AllowedRequests'), waf('BlockedRequests')], {
              leftAnnotations: [line(THRESHOLDS.wafBlockedPer5Minutes, 'alarm')],
            }),
          ]
        : []),
    ],
  ];
}
