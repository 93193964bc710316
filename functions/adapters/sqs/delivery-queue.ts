/**
 * The delivery queue on AWS: SQS (DELIVERY_QUEUE_URL). Its delays stop at 15 minutes,
 * so a message carries its due time and the deliverer puts an early one back for the
 * rest of the wait.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryMessage, DeliveryQueue } from '../../core/delivery-queue.js';
import { config } from '../../lib/config.js';
import { injectable } from '../../lib/injectable.js';

/** SQS's longest delay. */
const SQS_MAX_DELAY_SECONDS = 900;

export function sqsDeliveryQueue(queueUrl: string, sqs = new SQSClient({})): DeliveryQueue {
  return {
    async enqueue(message: DeliveryMessage, delaySeconds: number, now = new Date()) {
      const body = { ...message, notBefore: now.getTime() + delaySeconds * 1000 };
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(body),
          DelaySeconds: Math.min(delaySeconds, SQS_MAX_DELAY_SECONDS),
        }),
      );
    },
  };
}

/** The process's delivery queue: SQS, unless the host that started the process injected another. */
export const deliveryQueue = /* @__PURE__ */ injectable('DeliveryQueue', () => {
  const { queueUrl } = config().webhooks;
  if (!queueUrl) throw new Error('DELIVERY_QUEUE_URL is not set: the stack sets it on the functions that send to the delivery queue.');
  return sqsDeliveryQueue(queueUrl);
});
