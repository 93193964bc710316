/**
 * Operations (infra/aws/monitoring.ts, a nested stack): each child alarm with its metrics,
 * expression and threshold, the two composites that alone notify, and one dashboard that
 * shows every catalogue metric (decisions 190-195).
 */
import { Duration } from 'aws-cdk-lib';
import { METRIC_SERVICE, METRICS, metricNamespace, STATUS_CLASSES } from '../../contract/metric-catalogue.js';
import { OPERATION_TYPES } from '../../contract/vocabulary.js';
import { ALARM_METRICS_MAX, LATENCY_P99_MS_BY_GROUP, THRESHOLDS } from '../../infra/aws/monitoring.js';
import { catalogueMetric, chunks, ROUTE_GROUPS } from '../../infra/aws/service-metrics.js';
import { functionLimits } from '../../infra/function-limits.js';
import { type CfnResource, flatten, fnId, logicalId, resourcesOfType, stageOf } from './synth.js';

const s = stageOf({ stage: 'dev' });
const PREFIX = 'DeploymentApi-dev';
const NAMESPACE = metricNamespace('dev');
const THIRTY = Duration.seconds(30);

interface Query {
  id: string;
  namespace?: string;
  name?: string;
  dimensions: Record<string, unknown>;
  stat?: string;
  expression?: string;
  returned: boolean;
}

/** An alarm's metrics as one list, whether the template states one metric or a math query. */
function queriesOf(alarm: Record<string, any>): Query[] {
  const dims = (list: { Name: string; Value: unknown }[] = []) => Object.fromEntries(list.map((d) => [d.Name, d.Value]));
  if (!alarm.Metrics)
    return [
      {
        id: 'm',
        namespace: alarm.Namespace,
        name: alarm.MetricName,
        dimensions: dims(alarm.Dimensions),
        stat: alarm.Statistic ?? alarm.ExtendedStatistic,
        returned: true,
      },
    ];
  return alarm.Metrics.map((m: any) => ({
    id: m.Id,
    namespace: m.MetricStat?.Metric.Namespace,
    name: m.MetricStat?.Metric.MetricName,
    dimensions: dims(m.MetricStat?.Metric.Dimensions),
    stat: m.MetricStat?.Stat,
    expression: m.Expression,
    returned: m.ReturnData !== false,
  }));
}

const alarmResources = (): [string, CfnResource][] => resourcesOfType(s.all, 'AWS::CloudWatch::Alarm');
const alarms = () => alarmResources().map(([, a]) => a.Properties!);
function alarm(name: string): Record<string, any> {
  const found = alarms().filter((a) => a.AlarmName === `${PREFIX}-${name}`);
  expect({ name, found: found.length }).toEqual({ name, found: 1 });
  return found[0]!;
}
const returned = (a: Record<string, any>) => queriesOf(a).find((q) => q.returned)!;
const metricsOf = (a: Record<string, any>) => queriesOf(a).filter((q) => q.name);

describe('route groups', () => {
  it('are derived from both route tables', () => {
    expect(ROUTE_GROUPS).toEqual(
      expect.arrayContaining(['deployments', 'operations', 'webhooks', 'events', 'environments', 'key', 'dashboard']),
    );
    expect(new Set(ROUTE_GROUPS).size).toBe(ROUTE_GROUPS.length);
    for (const group of Object.keys(LATENCY_P99_MS_BY_GROUP)) expect(ROUTE_GROUPS).toContain(group);
  });

  it.each(ROUTE_GROUPS)('%s has a 5xx-rate alarm: 5xx answers over answers of every status class, from the catalogue', (group) => {
    const a = alarm(`Route5xxRate-${group}`);
    expect(a).toMatchObject({ Threshold: THRESHOLDS.server5xxPercent, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
    const metrics = metricsOf(a);
    expect(metrics.map((m) => m.dimensions.status_class).sort()).toEqual([...STATUS_CLASSES].sort());
    for (const m of metrics)
      expect(m).toMatchObject({
        namespace: NAMESPACE,
        name: METRICS.requests.name,
        stat: 'Sum',
        dimensions: { service: METRIC_SERVICE, route_group: group, status_class: expect.any(String) },
      });
    const fivexx = metrics.find((m) => m.dimensions.status_class === '5xx')!.id;
    expect(returned(a).expression).toBe(
      `IF(FILL(${fivexx}, 0) >= ${THRESHOLDS.route5xxMinimum}, 100 * FILL(${fivexx}, 0) / (${metrics.map((m) => `FILL(${m.id}, 0)`).join(' + ')}), 0)`,
    );
  });

  it.each(ROUTE_GROUPS)('%s has a p99 latency alarm on RequestLatency', (group) => {
    const a = alarm(`RouteLatencyP99-${group}`);
    expect(a).toMatchObject({ Threshold: LATENCY_P99_MS_BY_GROUP[group] ?? THRESHOLDS.latencyP99Ms, EvaluationPeriods: 3 });
    expect(metricsOf(a)).toEqual([
      expect.objectContaining({
        namespace: NAMESPACE,
        name: METRICS.requestLatency.name,
        stat: 'p99',
        dimensions: { service: METRIC_SERVICE, route_group: group },
      }),
    ]);
  });

  it('the API as a whole alarms on its 5xx share too, as API Gateway counts it', () => {
    const a = alarm('Api5xxRate');
    expect(metricsOf(a).map((m) => [m.namespace, m.name, m.stat])).toEqual([
      ['AWS/ApiGateway', '5XXError', 'Sum'],
      ['AWS/ApiGateway', 'Count', 'Sum'],
    ]);
    expect(a.Threshold).toBe(THRESHOLDS.server5xxPercent);
  });
});

describe('Lambda roll-ups', () => {
  it.each([
    ['LambdaErrors', 'Errors', 'Sum'],
    ['LambdaThrottles', 'Throttles', 'Sum'],
    ['LambdaDuration', 'Duration', 'Maximum'],
  ])('%s: every function in exactly one alarm of its kind, at most 10 metrics each', (prefix, metricName, stat) => {
    const rollups = alarms().filter((a) => a.AlarmName.startsWith(`${PREFIX}-${prefix}-`));
    const seen = new Map<string, string>();
    for (const a of rollups) {
      const metrics = metricsOf(a);
      expect(metrics.length).toBeLessThanOrEqual(ALARM_METRICS_MAX);
      const kind = a.AlarmName.slice(`${PREFIX}-${prefix}-`.length).replace(/-\d+$/, '');
      for (const m of metrics) {
        expect(m).toMatchObject({ namespace: 'AWS/Lambda', name: metricName, stat });
        const f = s.stack.functions.all.find((x) => fnId(s, x.name) === (m.dimensions.FunctionName as { Ref: string }).Ref)!;
        expect({ fn: f.name, kind: f.kind, before: seen.get(f.name) }).toEqual({ fn: f.name, kind, before: undefined });
        seen.set(f.name, a.AlarmName);
      }
    }
    expect([...seen.keys()].sort()).toEqual(s.stack.functions.all.map((f) => f.name).sort());
    const expected = ['http', 'workflow', 'events'].reduce(
      (n, kind) =>
        n +
        chunks(
          s.stack.functions.all.filter((f) => f.kind === kind),
          ALARM_METRICS_MAX,
        ).length,
      0,
    );
    expect(rollups).toHaveLength(expected);
  });

  it('errors and throttles alarm on any; duration on the longest run as a share of each function’s own timeout', () => {
    for (const a of alarms().filter((x) => /-Lambda(Errors|Throttles)-/.test(x.AlarmName))) {
      expect(a.Threshold).toBe(1);
      expect(returned(a).expression).toBe(
        `SUM([${metricsOf(a)
          .map((m) => m.id)
          .join(', ')}])`,
      );
    }
    for (const a of alarms().filter((x) => x.AlarmName.includes('-LambdaDuration-'))) {
      expect(a.Threshold).toBe(THRESHOLDS.durationPercentOfTimeout);
      const terms = metricsOf(a).map((m) => {
        const f = s.stack.functions.all.find((x) => fnId(s, x.name) === (m.dimensions.FunctionName as { Ref: string }).Ref)!;
        return `${m.id} / ${functionLimits(f.kind, f.name).timeoutSeconds * 1000}`;
      });
      expect(returned(a).expression).toBe(`100 * MAX([${terms.join(', ')}])`);
    }
  });

  it('replaces the two alarms per function: far fewer alarms than functions', () => {
    expect(alarms().length).toBeLessThan(s.stack.functions.all.length);
  });
});

describe('workflow, webhooks, table', () => {
  it('alarms on the share of failed executions and on any timed-out one', () => {
    const rate = alarm('WorkflowFailureRate');
    expect(metricsOf(rate).map((m) => [m.namespace, m.name, m.dimensions.StateMachineArn])).toEqual(
      ['ExecutionsFailed', 'ExecutionsSucceeded', 'ExecutionsAborted', 'ExecutionsTimedOut'].map((n) => [
        'AWS/States',
        n,
        { Ref: logicalId(s.stack.workflow.stateMachine) },
      ]),
    );
    expect(rate).toMatchObject({ Threshold: THRESHOLDS.workflowFailedPercent, Metrics: expect.any(Array) });
    expect(returned(rate).expression).toContain(`IF(FILL(failed, 0) >= ${THRESHOLDS.failedMinimum}, 100 * FILL(failed, 0) /`);
    expect(alarm('WorkflowTimedOut')).toMatchObject({ Namespace: 'AWS/States', MetricName: 'ExecutionsTimedOut', Threshold: 1 });
  });

  it('alarms on OperationsFailed against OperationsStarted, per operation type', () => {
    // As many types as fit in one alarm's ten metrics: more types are split over OperationsFailureRate-1, -2, …
    const split = alarms().filter((x) => /^.*-OperationsFailureRate(-\d+)?$/.test(x.AlarmName));
    expect(split.length).toBe(Math.ceil(OPERATION_TYPES.length / (ALARM_METRICS_MAX / 2)));
    for (const one of split) expect(metricsOf(one).length).toBeLessThanOrEqual(ALARM_METRICS_MAX);
    const a = split.length === 1 ? alarm('OperationsFailureRate') : split[0]!;
    const metrics = split.flatMap((one) => metricsOf(one));
    for (const type of OPERATION_TYPES) {
      for (const name of [METRICS.operationsFailed.name, METRICS.operationsStarted.name])
        expect(metrics).toContainEqual(
          expect.objectContaining({
            namespace: NAMESPACE,
            name,
            stat: 'Sum',
            dimensions: { service: METRIC_SERVICE, operation_type: type },
          }),
        );
    }
    expect(a.Threshold).toBe(THRESHOLDS.operationsFailedPercent);
    expect(returned(a).expression).toMatch(/^MAX\(\[share_/);
  });

  it('alarms on the webhook failure rate: retrying and gave_up over all attempts', () => {
    const a = alarm('WebhookFailureRate');
    expect(metricsOf(a).map((m) => [m.id, m.name, m.dimensions])).toEqual(
      ['delivered', 'retrying', 'gave_up'].map((outcome) => [
        outcome,
        METRICS.webhookDeliveries.name,
        { service: METRIC_SERVICE, outcome },
      ]),
    );
    expect(a).toMatchObject({ Threshold: THRESHOLDS.webhookFailedPercent, EvaluationPeriods: 2 });
    expect(returned(a).expression).toBe(
      `IF(FILL(retrying, 0) + FILL(gave_up, 0) >= ${THRESHOLDS.webhookFailedMinimum}, 100 * (FILL(retrying, 0) + FILL(gave_up, 0)) / (FILL(delivered, 0) + FILL(retrying, 0) + FILL(gave_up, 0)), 0)`,
    );
  });

  it('alarms on dead letters, the delivery queue’s oldest message and the dispatcher’s iterator age', () => {
    const queue = (q: Parameters<typeof logicalId>[0]) => ({ QueueName: { 'Fn::GetAtt': [logicalId(q), 'QueueName'] } });
    expect(metricsOf(alarm('WebhookDeadLetters'))).toEqual([
      expect.objectContaining({ name: 'ApproximateNumberOfMessagesVisible', dimensions: queue(s.stack.webhooks.deadLetterQueue) }),
    ]);
    expect(alarm('WebhookDeadLetters').Threshold).toBe(1);
    expect(metricsOf(alarm('WebhookQueueAge'))).toEqual([
      expect.objectContaining({ name: 'ApproximateAgeOfOldestMessage', stat: 'Maximum', dimensions: queue(s.stack.webhooks.queue) }),
    ]);
    expect(alarm('WebhookQueueAge').Threshold).toBe(THRESHOLDS.deliveryQueueAgeSeconds);
    expect(metricsOf(alarm('DispatchIteratorAge'))).toEqual([
      expect.objectContaining({
        namespace: 'AWS/Lambda',
        name: 'IteratorAge',
        dimensions: { FunctionName: { Ref: fnId(s, 'dispatch-events') } },
      }),
    ]);
    expect(alarm('DispatchIteratorAge').Threshold).toBe(THRESHOLDS.iteratorAgeMs);
  });

  it('alarms on DynamoDB throttling of the table; no WAF alarm where the stage has no web ACL', () => {
    const a = alarm('TableThrottles');
    expect(metricsOf(a).map((m) => [m.namespace, m.name])).toEqual([
      ['AWS/DynamoDB', 'ReadThrottleEvents'],
      ['AWS/DynamoDB', 'WriteThrottleEvents'],
    ]);
    expect(alarms().filter((x) => x.AlarmName.includes('Waf'))).toEqual([]);
  });
});

describe('composite alarms', () => {
  const composites = () => resourcesOfType(s.all, 'AWS::CloudWatch::CompositeAlarm').map(([, a]) => a.Properties!);
  /** The logical ids of the alarms a composite's rule names. */
  const childrenOf = (rule: unknown): string[] => [...JSON.stringify(rule).matchAll(/"Fn::GetAtt":\["([^"]+)","Arn"\]/g)].map((m) => m[1]!);

  it('only the two composites notify the topic; child alarms have no actions', () => {
    const topic = logicalId(s.stack.monitoring.topic);
    for (const a of alarms()) {
      expect({ alarm: a.AlarmName, actions: [a.AlarmActions, a.OKActions, a.InsufficientDataActions] }).toEqual({
        alarm: a.AlarmName,
        actions: [undefined, undefined, undefined],
      });
    }
    expect(composites().map((c) => [c.AlarmName, c.AlarmActions, c.OKActions])).toEqual([
      [`${PREFIX}-ServiceUnhealthy`, [{ Ref: topic }], [{ Ref: topic }]],
      [`${PREFIX}-ServiceDegraded`, [{ Ref: topic }], [{ Ref: topic }]],
    ]);
  });

  it('every child alarm feeds exactly one composite; 5xx pages, the rest makes a ticket', () => {
    const [unhealthy, degraded] = composites().map((c) => childrenOf(c.AlarmRule));
    const all = alarmResources().map(([id]) => id);
    expect([...unhealthy!, ...degraded!].sort()).toEqual([...all].sort());
    const name = (id: string) => alarmResources().find(([x]) => x === id)![1].Properties!.AlarmName as string;
    expect(unhealthy!.map(name).sort()).toEqual([`${PREFIX}-Api5xxRate`, ...ROUTE_GROUPS.map((g) => `${PREFIX}-Route5xxRate-${g}`)].sort());
  });

  it("keeps each composite's rule under CloudWatch's 10,240 characters once the ARNs are in", () => {
    const arn = (alarmName: string) =>
      `arn:aws-us-gov:cloudwatch:ap-southeast-5:123456789012:alarm:${alarmName.replace('-dev-', '-prod-')}`;
    for (const c of composites()) {
      const names = childrenOf(c.AlarmRule).map((id) => alarmResources().find(([x]) => x === id)![1].Properties!.AlarmName as string);
      const rule = `(${names.map((n) => `ALARM("${arn(n)}")`).join(' OR ')})`;
      expect({ composite: c.AlarmName, fits: rule.length <= 10_240 }).toEqual({ composite: c.AlarmName, fits: true });
    }
  });
});

describe('the dashboard', () => {
  /** The dashboard's body as deployed, references written `<Ref:id>` / `<GetAtt:id.attr>`. */
  const body = (): { widgets: { type: string; properties: Record<string, any> }[] } => {
    const [[, dash]] = resourcesOfType(s.all, 'AWS::CloudWatch::Dashboard') as [[string, CfnResource]];
    return JSON.parse(flatten(dash.Properties!.DashboardBody));
  };
  /** Every metric a graph names: [namespace, metric name, dimension name, value, …]. */
  const graphed = () =>
    body()
      .widgets.filter((w) => w.type === 'metric')
      .flatMap((w) => [...(w.properties.metrics ?? [])])
      .filter((m: unknown[]) => typeof m[0] === 'string' && !(m[0] as string).startsWith('...'))
      .map((m: unknown[]) => m.filter((x) => typeof x === 'string') as string[]);

  it('is one dashboard', () => {
    expect(resourcesOfType(s.all, 'AWS::CloudWatch::Dashboard')).toHaveLength(1);
  });

  it.each(Object.keys(METRICS) as (keyof typeof METRICS)[])(
    'graphs the catalogue metric %s, in the stage namespace, with service',
    (key) => {
      const found = graphed().filter(([ns, name]) => ns === NAMESPACE && name === METRICS[key].name);
      expect(found.length).toBeGreaterThan(0);
      for (const m of found) expect(m.slice(2)).toEqual(expect.arrayContaining(['service', METRIC_SERVICE, ...METRICS[key].dimensions]));
    },
  );

  it('shows every alarm, the composites first', () => {
    const widget = body().widgets.find((w) => w.type === 'alarm')!;
    const ids = [...resourcesOfType(s.all, 'AWS::CloudWatch::CompositeAlarm'), ...alarmResources()].map(([id]) => `<GetAtt:${id}.Arn>`);
    expect(widget.properties.alarms).toEqual(ids);
  });
});

describe('catalogueMetric', () => {
  it('takes exactly the dimensions the catalogue declares, and adds service', () => {
    const m = catalogueMetric('dev', 'requests', { route_group: 'deployments', status_class: '5xx' }, { statistic: 'Sum', period: THIRTY });
    expect(m.dimensions).toEqual({ service: METRIC_SERVICE, route_group: 'deployments', status_class: '5xx' });
    expect(m).toMatchObject({ namespace: NAMESPACE, metricName: 'Requests', unit: 'Count' });
    expect(() => catalogueMetric('dev', 'requests', { route_group: 'deployments' } as never, { statistic: 'Sum', period: THIRTY })).toThrow(
      'Requests is emitted with dimensions [route_group, status_class], not [route_group]',
    );
  });
});

it('keeps logs a week in dev, and lets them go with the stack', () => {
  for (const [, lg] of resourcesOfType(s.json, 'AWS::Logs::LogGroup')) {
    expect(lg.Properties?.RetentionInDays).toBe(7);
    expect(lg.DeletionPolicy).toBe('Delete');
  }
});
