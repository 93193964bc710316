/** Webhooks: attempts that did not deliver, dead letters, a queue or a stream falling behind. */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { DELIVERY_OUTCOMES } from '../../../contract/metric-catalogue.js';
import { type AlarmKit, PERIOD, QUARTER, THRESHOLDS } from './alarms.js';

export interface WebhookResources {
  /** The delivery queue the dispatcher fills and the deliverer reads. */
  readonly queue: sqs.IQueue;
  /** Dead letters of the delivery queue and failed stream batches of the dispatcher. */
  readonly deadLetterQueue: sqs.IQueue;
  /** The function reading the table's stream. */
  readonly dispatcher: lambda.IFunction;
}

/** The series the dashboard graphs beside the alarms. */
export interface WebhookSignals {
  /** Delivery attempts by outcome. */
  readonly deliveries: Record<string, cloudwatch.Metric>;
  readonly webhookFailureRate: cloudwatch.MathExpression;
  readonly deadLetters: cloudwatch.Metric;
  readonly queueAge: cloudwatch.Metric;
  readonly iteratorAge: cloudwatch.Metric;
}

/** Tickets on the share of attempts not delivered, on dead letters, and on the queue's and the stream's lag. */
export function webhookAlarms(kit: AlarmKit, webhooks: WebhookResources): WebhookSignals {
  const { child, metric } = kit;
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
  return { deliveries, webhookFailureRate, deadLetters, queueAge, iteratorAge };
}
