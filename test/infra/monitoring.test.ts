/** Operations (infra/aws/monitoring.ts, a nested stack): the alarms, where they go, the dashboard, and log retention. */
import { fnId, logicalId, resourcesOfType, stageOf } from './synth.js';

const s = stageOf({ stage: 'dev' });

describe('operations', () => {
  const alarms = () => resourcesOfType(s.all, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties!);

  it('alarms on the API 5xx rate', () => {
    expect(
      alarms().filter(
        (a) => a.MetricName === '5XXError' && a.Namespace === 'AWS/ApiGateway' && a.Statistic === 'Average' && a.Threshold === 0.05,
      ),
    ).toHaveLength(1);
  });

  it('alarms on errors and throttles of every function', () => {
    for (const f of s.stack.functions.all) {
      for (const metric of ['Errors', 'Throttles']) {
        const found = alarms().filter(
          (a) => a.MetricName === metric && a.Namespace === 'AWS/Lambda' && a.Dimensions?.[0]?.Value?.Ref === fnId(s, f.name),
        );
        expect({ fn: f.name, metric, n: found.length }).toEqual({ fn: f.name, metric, n: 1 });
      }
    }
  });

  it('alarms on failed and timed-out workflow executions and on DynamoDB throttling', () => {
    const names = alarms()
      .filter((a) => a.Namespace === 'AWS/States')
      .map((a) => a.MetricName)
      .sort();
    expect(names).toEqual(['ExecutionsFailed', 'ExecutionsTimedOut']);
    const dynamo = alarms().filter((a) => a.Metrics?.some((m: any) => m.MetricStat?.Metric.Namespace === 'AWS/DynamoDB'));
    expect(dynamo).toHaveLength(1);
  });

  it('alarms on any message in the webhook dead-letter queue, and on the dispatcher falling behind the stream', () => {
    const dlq = alarms().filter((a) => a.Namespace === 'AWS/SQS');
    expect(dlq).toHaveLength(1);
    expect(dlq[0]).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(s.stack.webhooks.deadLetterQueue), 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const age = alarms().filter((a) => a.MetricName === 'IteratorAge');
    expect(age).toHaveLength(1);
    expect(age[0]).toMatchObject({
      Namespace: 'AWS/Lambda',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId(s, 'dispatch-events') } }],
    });
  });

  it('sends every alarm to the alarm topic, and has a dashboard', () => {
    const topic = logicalId(s.stack.monitoring.topic);
    for (const a of alarms()) expect(a.AlarmActions).toEqual([{ Ref: topic }]);
    expect(resourcesOfType(s.all, 'AWS::CloudWatch::Dashboard')).toHaveLength(1);
  });

  it('keeps logs a week in dev, and lets them go with the stack', () => {
    for (const [, lg] of resourcesOfType(s.json, 'AWS::Logs::LogGroup')) {
      expect(lg.Properties?.RetentionInDays).toBe(7);
      expect(lg.DeletionPolicy).toBe('Delete');
    }
  });
});
