/**
 * The alarms operators act on and one dashboard for the whole service (decisions 190-195).
 *
 * Child alarms watch one signal each and notify nobody; two composite alarms read them and
 * are the only ones that notify the SNS topic: `ServiceUnhealthy` (page: clients are being
 * answered 5xx) and `ServiceDegraded` (ticket: everything else worth a look within a working
 * day). docs/deploy.md has the runbook: what each alarm means and what to do.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
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
import {
  DELIVERY_OUTCOMES,
  type DimensionsOf,
  type MetricKey,
  routeGroupOf,
  STATUS_CLASSES,
  THROTTLE_REASONS,
} from '../../contract/metric-catalogue.js';
import { waitOperation } from '../../contract/routes.js';
import { OPERATION_TYPES, PHASES } from '../../contract/vocabulary.js';
import { type FunctionKind, functionLimits } from '../function-limits.js';
import type { ServiceFunction } from './functions.js';
import { type CatalogueMetricOptions, catalogueMetric, chunks, ROUTE_GROUPS } from './service-metrics.js';
import type { Settings } from './settings.js';

const PERIOD = Duration.minutes(5);
const QUARTER = Duration.minutes(15);
const HOUR = Duration.hours(1);

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

/**
 * Route groups whose p99 is not an ordinary request's: GET /operations/{id}/wait answers after
 * up to 20 s by design (decision 36), so its group alarms only when waits overrun that.
 */
export const LATENCY_P99_MS_BY_GROUP: Readonly<Record<string, number>> = { [routeGroupOf(waitOperation.path)]: 22_000 };

/** The kinds of function, each rolled up on its own (functions of a kind share a timeout, but for a few). */
const KINDS: readonly FunctionKind[] = ['http', 'workflow', 'events'];

export interface MonitoringProps {
  readonly settings: Settings;
  /** Alarm names start with it (the parent stack's name), so the composite's rule and the console read them. */
  readonly namePrefix: string;
  readonly api: apigw.RestApi;
  readonly functions: readonly ServiceFunction[];
  readonly stateMachine: sfn.StateMachine;
  readonly table: dynamodb.Table;
  readonly webhooks: {
    /** The delivery queue the dispatcher fills and the deliverer reads. */
    readonly queue: sqs.IQueue;
    /** Dead letters of the delivery queue and failed stream batches of the dispatcher. */
    readonly deadLetterQueue: sqs.IQueue;
    /** The function reading the table's stream. */
    readonly dispatcher: lambda.IFunction;
  };
  /** The API's web ACL name, when the stage has one (the dashboard's CloudFront distribution has none). */
  readonly webAclName?: string;
}

export interface ChildAlarm {
  readonly alarm: cloudwatch.Alarm;
  readonly severity: Severity;
}

/** A metric-math identifier from a route group or function name (`openapi.json` → `openapi_json`). */
const mathId = (prefix: string, name: string): string => `${prefix}_${name.replace(/[^A-Za-z0-9]/g, '_')}`;

export class Monitoring extends Construct {
  readonly topic: sns.Topic;
  readonly children: ChildAlarm[] = [];
  /** Page: clients are being answered with errors. */
  readonly unhealthy: cloudwatch.CompositeAlarm;
  /** Ticket: something needs a look within a working day. */
  readonly degraded: cloudwatch.CompositeAlarm;
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { settings, namePrefix, api, functions, stateMachine, table, webhooks } = props;
    const stage = settings.stage;
    const metric = <K extends MetricKey>(key: K, dimensions: DimensionsOf<K>, options: CatalogueMetricOptions) =>
      catalogueMetric(stage, key, dimensions, options);

    this.topic = new sns.Topic(this, 'AlarmTopic', { displayName: `Deployment API alarms (${stage})`, enforceSSL: true });
    if (settings.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(settings.alarmEmail));

    const child = (
      alarmId: string,
      severity: Severity,
      watched: cloudwatch.IMetric,
      description: string,
      opts: { threshold: number; evaluationPeriods?: number; datapointsToAlarm?: number },
    ): cloudwatch.Alarm => {
      const alarm = new cloudwatch.Alarm(this, alarmId, {
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
      this.children.push({ alarm, severity });
      return alarm;
    };

    // ---- Requests: the API as a whole (API Gateway's own count, which sees the 502s of a crashed function) and per route group.
    const apiCount = api.deploymentStage.metricCount({ statistic: 'Sum', period: PERIOD, label: 'requests' });
    const api5xx = api.deploymentStage.metricServerError({ statistic: 'Sum', period: PERIOD, label: '5xx' });
    child(
      'Api5xxRate',
      'page',
      new cloudwatch.MathExpression({
        expression: `IF(api5xx >= ${THRESHOLDS.route5xxMinimum}, 100 * api5xx / apiCount, 0)`,
        usingMetrics: { api5xx, apiCount },
        label: 'API 5xx, % of requests',
        period: PERIOD,
      }),
      `At least ${THRESHOLDS.server5xxPercent}% of all API requests (and ${THRESHOLDS.route5xxMinimum} or more) answered 5xx, API Gateway's own answers included, in 2 of 3 five-minute periods`,
      { threshold: THRESHOLDS.server5xxPercent, evaluationPeriods: 3, datapointsToAlarm: 2 },
    );

    const route5xxRates = new Map<string, cloudwatch.MathExpression>();
    const routeLatency = new Map<string, cloudwatch.Metric>();
    const routeRequests = new Map<string, cloudwatch.MathExpression>();
    for (const group of ROUTE_GROUPS) {
      const byClass = Object.fromEntries(
        STATUS_CLASSES.map((c) => [
          mathId(`s${c}`, group),
          metric('requests', { route_group: group, status_class: c }, { statistic: 'Sum', period: PERIOD }),
        ]),
      );
      const all = Object.keys(byClass)
        .map((k) => `FILL(${k}, 0)`)
        .join(' + ');
      const errors = `FILL(${mathId('s5xx', group)}, 0)`;
      routeRequests.set(group, new cloudwatch.MathExpression({ expression: all, usingMetrics: byClass, label: group, period: PERIOD }));
      const rate = new cloudwatch.MathExpression({
        expression: `IF(${errors} >= ${THRESHOLDS.route5xxMinimum}, 100 * ${errors} / (${all}), 0)`,
        usingMetrics: byClass,
        label: group,
        period: PERIOD,
      });
      route5xxRates.set(group, rate);
      child(
        `Route5xxRate-${group}`,
        'page',
        rate,
        `At least ${THRESHOLDS.server5xxPercent}% of the ${group} routes' answers (and ${THRESHOLDS.route5xxMinimum} or more) were 5xx in 2 of 3 five-minute periods`,
        { threshold: THRESHOLDS.server5xxPercent, evaluationPeriods: 3, datapointsToAlarm: 2 },
      );

      const p99 = metric('requestLatency', { route_group: group }, { statistic: 'p99', period: PERIOD, label: group });
      routeLatency.set(group, p99);
      const limitMs = LATENCY_P99_MS_BY_GROUP[group] ?? THRESHOLDS.latencyP99Ms;
      child(`RouteLatencyP99-${group}`, 'ticket', p99, `p99 latency of the ${group} routes at or above ${limitMs} ms for 15 minutes`, {
        threshold: limitMs,
        evaluationPeriods: 3,
      });
    }

    // ---- Lambda, rolled up per kind in runs of at most 10 functions (decision 192).
    const ids = new Map(functions.map((f, i) => [f.name, i]));
    const timeoutMs = (f: ServiceFunction) => functionLimits(f.kind, f.name).timeoutSeconds * 1000;
    const durationMax = (f: ServiceFunction) => f.fn.metricDuration({ statistic: 'Maximum', period: PERIOD, label: f.name });
    const durationShare = new Map<string, cloudwatch.MathExpression>();
    for (const f of functions) {
      const d = `d${ids.get(f.name)}`;
      durationShare.set(
        f.name,
        new cloudwatch.MathExpression({
          expression: `100 * ${d} / ${timeoutMs(f)}`,
          usingMetrics: { [d]: durationMax(f) },
          label: f.name,
          period: PERIOD,
        }),
      );
    }
    const rollups: {
      id: string;
      read: (f: ServiceFunction) => cloudwatch.IMetric;
      /** The metric-math id of each function's metric, and the term the alarm's expression makes of it. */
      prefix: string;
      term: (id: string, f: ServiceFunction) => string;
      expression: (terms: string) => string;
      label: string;
      says: string;
      threshold: number;
    }[] = [
      {
        id: 'LambdaErrors',
        read: (f) => f.fn.metricErrors({ statistic: 'Sum', period: PERIOD }),
        prefix: 'e',
        term: (id) => id,
        expression: (terms) => `SUM([${terms}])`,
        label: 'errors',
        says: 'A function raised an error (an unhandled fault or a timeout), one of',
        threshold: 1,
      },
      {
        id: 'LambdaThrottles',
        read: (f) => f.fn.metricThrottles({ statistic: 'Sum', period: PERIOD }),
        prefix: 't',
        term: (id) => id,
        expression: (terms) => `SUM([${terms}])`,
        label: 'throttles',
        says: 'Lambda throttled one of',
        threshold: 1,
      },
      {
        id: 'LambdaDuration',
        read: durationMax,
        prefix: 'd',
        term: (id, f) => `${id} / ${timeoutMs(f)}`,
        expression: (terms) => `100 * MAX([${terms}])`,
        label: 'longest run, % of timeout',
        says: `A run took ${THRESHOLDS.durationPercentOfTimeout}% or more of its function's timeout, one of`,
        threshold: THRESHOLDS.durationPercentOfTimeout,
      },
    ];
    for (const kind of KINDS) {
      const runs = chunks(
        functions.filter((f) => f.kind === kind),
        ALARM_METRICS_MAX,
      );
      runs.forEach((run, i) => {
        const suffix = runs.length > 1 ? `${kind}-${i + 1}` : kind;
        for (const r of rollups) {
          const idOf = (f: ServiceFunction) => `${r.prefix}${ids.get(f.name)}`;
          child(
            `${r.id}-${suffix}`,
            'ticket',
            new cloudwatch.MathExpression({
              expression: r.expression(run.map((f) => r.term(idOf(f), f)).join(', ')),
              usingMetrics: Object.fromEntries(run.map((f) => [idOf(f), r.read(f)])),
              label: `${r.label} (${suffix})`,
              period: PERIOD,
            }),
            `${r.says}: ${run.map((f) => f.name).join(', ')}`,
            { threshold: r.threshold },
          );
        }
      });
    }

    // ---- The operation workflow: the executions AWS counts, and the operations the service counts by type.
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

    // ---- Webhooks: attempts that did not deliver, dead letters, a queue or a stream falling behind.
    const deliveries = Object.fromEntries(
      DELIVERY_OUTCOMES.map((outcome) => [
        outcome,
        metric('webhookDeliveries', { outcome }, { statistic: 'Sum', period: QUARTER, label: outcome }),
      ]),
    );
    const notDelivered = 'FILL(retrying, 0) + FILL(gave_up, 0)';
    const webhookFailureRate = new cloudwatch.MathExpression({
      expression: `IF(${notDelivered} >= ${THRESHOLDS.webhookFailedMinimum}, 100 * (${notDelivered}) / (FILL(delivered, 0) + ${notDelivered}), 0)`,
      usingMetrics: deliveries,
      label: 'not delivered, % of attempts',
      period: QUARTER,
    });
    child(
      'WebhookFailureRate',
      'ticket',
      webhookFailureRate,
      `At least ${THRESHOLDS.webhookFailedPercent}% of webhook delivery attempts (and ${THRESHOLDS.webhookFailedMinimum} or more) were retried or given up, two quarter-hours in a row`,
      { threshold: THRESHOLDS.webhookFailedPercent, evaluationPeriods: 2 },
    );
    const deadLetters = webhooks.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
      statistic: 'Maximum',
      period: PERIOD,
      label: 'dead letters',
    });
    child(
      'WebhookDeadLetters',
      'ticket',
      deadLetters,
      'A message is in the webhook dead-letter queue (a delivery given up, or a failed stream batch)',
      {
        threshold: 1,
      },
    );
    const queueAge = webhooks.queue.metricApproximateAgeOfOldestMessage({
      statistic: 'Maximum',
      period: PERIOD,
      label: 'oldest message (s)',
    });
    child(
      'WebhookQueueAge',
      'ticket',
      queueAge,
      `The oldest message of the webhook delivery queue is ${THRESHOLDS.deliveryQueueAgeSeconds / 60} minutes old or more`,
      { threshold: THRESHOLDS.deliveryQueueAgeSeconds },
    );
    const iteratorAge = webhooks.dispatcher.metric('IteratorAge', { statistic: 'Maximum', period: PERIOD, label: 'iterator age (ms)' });
    child(
      'DispatchIteratorAge',
      'ticket',
      iteratorAge,
      `dispatch-events is ${THRESHOLDS.iteratorAgeMs / 60_000} minutes or more behind the table's stream`,
      { threshold: THRESHOLDS.iteratorAgeMs },
    );

    // ---- The table and the firewall.
    const tableThrottles = new cloudwatch.MathExpression({
      expression: 'FILL(reads, 0) + FILL(writes, 0)',
      usingMetrics: {
        reads: table.metric('ReadThrottleEvents', { statistic: 'Sum', period: PERIOD }),
        writes: table.metric('WriteThrottleEvents', { statistic: 'Sum', period: PERIOD }),
      },
      label: 'throttled reads + writes',
      period: PERIOD,
    });
    child('TableThrottles', 'ticket', tableThrottles, 'DynamoDB throttled reads or writes on the table', { threshold: 1 });

    const waf = props.webAclName
      ? (name: string) =>
          new cloudwatch.Metric({
            namespace: 'AWS/WAFV2',
            metricName: name,
            dimensionsMap: { WebACL: props.webAclName!, Region: Stack.of(this).region, Rule: 'ALL' },
            statistic: 'Sum',
            period: PERIOD,
            label: name,
          })
      : undefined;
    if (waf) {
      child(
        'WafBlockedRequests',
        'ticket',
        waf('BlockedRequests'),
        `The API's web ACL blocked ${THRESHOLDS.wafBlockedPer5Minutes} or more requests in 2 of 3 five-minute periods`,
        { threshold: THRESHOLDS.wafBlockedPer5Minutes, evaluationPeriods: 3, datapointsToAlarm: 2 },
      );
    }

    // ---- The two composites, the only alarms with actions.
    const action = new cwActions.SnsAction(this.topic);
    const composite = (compositeId: string, severity: Severity, description: string) => {
      const watched = this.children.filter((c) => c.severity === severity).map((c) => c.alarm);
      const alarm = new cloudwatch.CompositeAlarm(this, compositeId, {
        compositeAlarmName: `${namePrefix}-${compositeId}`,
        alarmDescription: `${description} (${stage}; runbook in docs/deploy.md)`,
        alarmRule: cloudwatch.AlarmRule.anyOf(...watched.map((a) => cloudwatch.AlarmRule.fromAlarm(a, cloudwatch.AlarmState.ALARM))),
      });
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      return alarm;
    };
    this.unhealthy = composite('ServiceUnhealthy', 'page', 'Page: clients are being answered 5xx; one of its child alarms is in ALARM');
    this.degraded = composite(
      'ServiceDegraded',
      'ticket',
      'Ticket: a part of the service is failing, slow or behind; one of its child alarms is in ALARM',
    );

    // ---- One dashboard (decision 195).
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

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
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
            alarms: [this.unhealthy, this.degraded, ...this.children.map((c) => c.alarm)],
            width: 16,
            height: 6,
          }),
        ],
        [
          graph('Requests by route group', [...routeRequests.values()]),
          graph('5xx by route group (% of answers)', [...route5xxRates.values()], {
            leftAnnotations: [line(THRESHOLDS.server5xxPercent, 'alarm')],
          }),
          graph('Request latency p99 by route group (ms)', [...routeLatency.values()], {
            leftAnnotations: [line(THRESHOLDS.latencyP99Ms, 'alarm')],
          }),
        ],
        [
          graph('API Gateway requests, 4xx, 5xx', [
            apiCount,
            api.deploymentStage.metricClientError({ statistic: 'Sum', period: PERIOD, label: '4xx' }),
            api5xx,
          ]),
          graph('API Gateway latency (ms)', [
            api.deploymentStage.metricLatency({ statistic: 'p50', period: PERIOD, label: 'p50' }),
            api.deploymentStage.metricLatency({ statistic: 'p99', period: PERIOD, label: 'p99' }),
            api.deploymentStage.metricIntegrationLatency({ statistic: 'p99', period: PERIOD, label: 'integration p99' }),
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
          graph('Lambda longest run, % of its timeout', [...durationShare.values()], {
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
          graph('Operations failed, % of started (hourly)', [...opsFailureShare.values()], {
            leftAnnotations: [line(THRESHOLDS.operationsFailedPercent, 'alarm')],
          }),
        ],
        [
          graph('Phase durations p50 (s, hourly)', phaseDurations('p50')),
          graph('Phase durations p99 (s, hourly)', phaseDurations('p99')),
          graph('Workflow executions failed, % of ended (hourly)', [workflowFailureRate], {
            leftAnnotations: [line(THRESHOLDS.workflowFailedPercent, 'alarm')],
          }),
        ],
        [
          graph('Webhook delivery attempts, by outcome', Object.values(deliveries), {
            right: [webhookFailureRate],
            rightAnnotations: [line(THRESHOLDS.webhookFailedPercent, 'alarm (%)')],
          }),
          graph('Webhook delivery latency (ms)', [
            metric('webhookDeliveryLatency', {}, { statistic: 'p50', period: PERIOD, label: 'p50' }),
            metric('webhookDeliveryLatency', {}, { statistic: 'p99', period: PERIOD, label: 'p99' }),
          ]),
          graph('Webhook queues', [queueAge, deadLetters], {
            right: [iteratorAge],
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
            { right: [tableThrottles] },
          ),
          ...(waf
            ? [
                graph('Web ACL (API)', [waf('AllowedRequests'), waf('BlockedRequests')], {
                  leftAnnotations: [line(THRESHOLDS.wafBlockedPer5Minutes, 'alarm')],
                }),
              ]
            : []),
        ],
      ],
    });
  }
}
