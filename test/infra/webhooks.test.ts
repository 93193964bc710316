/** Webhook delivery (infra/aws/webhooks.ts): the key, the queues, and the two events functions on their sources. */
import { Match } from 'aws-cdk-lib/assertions';
import { EVENTS_FUNCTIONS, type FunctionName } from '../../infra/aws/function-access.js';
import { reservedConcurrency } from '../../infra/aws/functions.js';
import { flatten, fnId, logicalId, resourcesOfType, stageOf } from './synth.js';

const s = stageOf({ stage: 'dev' });

describe('webhook delivery', () => {
  const fnTimeout = (name: FunctionName) => s.json.Resources[fnId(s, name)]!.Properties?.Timeout as number;

  it('has a rotating KMS key with an alias, destroyed with a dev stack', () => {
    s.template.resourceCountIs('AWS::KMS::Key', 1);
    s.template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Delete', Properties: Match.objectLike({ EnableKeyRotation: true }) });
    s.template.hasResourceProperties('AWS::KMS::Alias', {
      AliasName: 'alias/DeploymentApi-dev/webhook-secrets',
      TargetKeyId: { 'Fn::GetAtt': [logicalId(s.stack.webhooks.key), 'Arn'] },
    });
  });

  it('has a delivery queue (SSE, visible again after 6 × the deliverer timeout) redriving to a 14-day dead-letter queue after 5 receives', () => {
    const queue = s.json.Resources[logicalId(s.stack.webhooks.queue)]!.Properties!;
    const dlq = s.json.Resources[logicalId(s.stack.webhooks.deadLetterQueue)]!.Properties!;
    expect(queue).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 6 * fnTimeout('deliver-webhooks'),
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(s.stack.webhooks.deadLetterQueue), 'Arn'] }, maxReceiveCount: 5 },
    });
    expect(dlq).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
    s.template.resourceCountIs('AWS::SQS::Queue', 2);
  });

  it('denies non-TLS access to both queues', () => {
    const policies = resourcesOfType(s.json, 'AWS::SQS::QueuePolicy').map(([, p]) => p.Properties!);
    for (const q of [s.stack.webhooks.queue, s.stack.webhooks.deadLetterQueue]) {
      const policy = policies.find((p) => (p.Queues as unknown[]).some((r) => flatten(r) === `<Ref:${logicalId(q)}>`));
      expect(policy?.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('runs dispatch-events on the table stream: new event items only, bisecting and bounded, failures to the dead-letter queue', () => {
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnId(s, 'dispatch-events') },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(s.stack.data.table), 'StreamArn'] },
      StartingPosition: 'LATEST',
      BatchSize: 100,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: 10,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(s.stack.webhooks.deadLetterQueue), 'Arn'] } } },
      FilterCriteria: {
        Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { sk: { S: [{ prefix: 'EVT#' }] } } } }) }],
      },
    });
  });

  it('runs deliver-webhooks on the delivery queue, 10 messages at a time, reporting failures per message', () => {
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnId(s, 'deliver-webhooks') },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(s.stack.webhooks.queue), 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      // No more deliverers at once than it may have reserved (messages throttled back would count toward the dead letters).
      ScalingConfig: { MaximumConcurrency: reservedConcurrency('events', 'deliver-webhooks') },
    });
    s.template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
  });

  it("lets the deliverer send to its own queue as often as the retry schedule takes (Lambda's loop detection would stop it)", () => {
    expect(s.json.Resources[fnId(s, 'deliver-webhooks')]!.Properties?.RecursiveLoop).toBe('Allow');
    const others = s.stack.functions.all.filter((f) => f.name !== 'deliver-webhooks');
    for (const f of others)
      expect({ fn: f.name, loop: s.json.Resources[fnId(s, f.name)]!.Properties?.RecursiveLoop }).toEqual({ fn: f.name, loop: undefined });
  });

  it('gives the events functions no VPC (the deliverer POSTs to the internet)', () => {
    for (const name of EVENTS_FUNCTIONS) expect(s.json.Resources[fnId(s, name)]!.Properties?.VpcConfig).toBeUndefined();
  });
});
