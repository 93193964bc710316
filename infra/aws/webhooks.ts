/**
 * Webhook delivery on AWS (decision 38): the key that seals webhook secrets, the
 * delivery queue and its dead-letter queue, and the event sources that run the two
 * functions/events/ functions (the table's stream → dispatch-events → the queue →
 * deliver-webhooks). Who may send to the queue or use the key is FUNCTION_ACCESS's
 * business (functions.ts grantAccess); the event sources grant only what reading
 * their source takes.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { functionTimeout, reservedConcurrency } from './functions.js';
import type { Settings } from './settings.js';

/** Receives before a delivery message goes to the dead-letter queue. */
export const MAX_RECEIVE_COUNT = 5;
/** Messages per deliverer invocation (delivered in parallel, each POST ≤ 10 s). */
export const DELIVER_BATCH_SIZE = 10;
/** Deliverers the queue runs at once (SQS event source maximum concurrency), and so the POSTs in flight ≤ 10 × this. */
export const DELIVER_MAX_CONCURRENCY = reservedConcurrency('events', 'deliver-webhooks');
/** Stream records per dispatcher invocation. */
export const DISPATCH_BATCH_SIZE = 100;
/** Retries of a failing stream batch (halved each time) before it goes to the dead-letter queue. */
export const DISPATCH_RETRY_ATTEMPTS = 10;
/** AWS's advice: a queue that feeds a function stays invisible 6 × the function's timeout. */
export const VISIBILITY_FACTOR = 6;

/** The stream records the dispatcher sees: new event items, nothing else (the handler checks the same). */
export const STREAM_FILTER = lambda.FilterCriteria.filter({
  eventName: lambda.FilterRule.isEqual('INSERT'),
  dynamodb: { NewImage: { sk: { S: lambda.FilterRule.beginsWith('EVT#') } } },
});

export class WebhookDelivery extends Construct {
  readonly key: kms.Key;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, settings: Settings) {
    super(scope, id);
    this.key = new kms.Key(this, 'SecretKey', {
      description: `Seals webhook signing secrets (${settings.stage})`,
      alias: `alias/${Stack.of(this).stackName}/webhook-secrets`,
      enableKeyRotation: true,
      removalPolicy: settings.removalPolicy,
    });
    // Nobody needs a grant on this key: the two functions that use it are allowed by their
    // roles (FUNCTION_ACCESS), and no AWS service encrypts with it. So a principal that may
    // otherwise use the key cannot hand its use on through a grant (decision 174).
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'DenyGrantsExceptForAwsServices',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['kms:CreateGrant'],
        resources: ['*'],
        conditions: { BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' } },
      }),
    );
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetters', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      // Declared a dead-letter queue (what SQS allows by default, stated so that Control Tower's
      // CT.SQS.PR.1 asks it for no dead-letter queue of its own). Naming the delivery queue as its
      // only source would make the two queues refer to each other.
      redriveAllowPolicy: { redrivePermission: sqs.RedrivePermission.ALLOW_ALL },
      removalPolicy: settings.removalPolicy,
    });
    this.queue = new sqs.Queue(this, 'Deliveries', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(VISIBILITY_FACTOR * functionTimeout('events', 'deliver-webhooks').toSeconds()),
      // A message waits at most 15 minutes (SQS's longest delay; later attempts hop until due).
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
      removalPolicy: settings.removalPolicy,
    });
  }

  /** Runs the dispatcher on the table's stream and the deliverer on the queue. */
  connect(table: dynamodb.ITable, dispatcher: lambda.IFunction, deliverer: lambda.IFunction): void {
    dispatcher.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: lambda.StartingPosition.LATEST,
        batchSize: DISPATCH_BATCH_SIZE,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: DISPATCH_RETRY_ATTEMPTS,
        maxRecordAge: Duration.days(1),
        onFailure: new SqsDlq(this.deadLetterQueue),
        filters: [STREAM_FILTER],
      }),
    );
    if (dispatcher.role)
      Validations.of(dispatcher.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords) and the stream event source (dynamodb:ListStreams) do not support resource-level permissions.',
      });
    deliverer.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: DELIVER_BATCH_SIZE,
        reportBatchItemFailures: true,
        // As many deliverers as the function may have reserved: above that Lambda would throttle
        // them and the messages would come back early, counting toward the dead-letter queue.
        maxConcurrency: DELIVER_MAX_CONCURRENCY,
      }),
    );
    // A retry later than SQS's 15-minute delay is waited in hops, the deliverer sending the
    // message back to its own queue (decision 108): up to 72 messages a delivery, which Lambda's
    // recursive-loop detection would stop after about 16. The loop is bounded by the retry
    // schedule and the dead-letter queue, so it is allowed (decision 153).
    const cfn = (deliverer as lambda.Function).node.defaultChild as lambda.CfnFunction;
    cfn.recursiveLoop = lambda.RecursiveLoop.ALLOW;
  }
}
