/**
 * The delivery queue on AWS (functions/adapters/sqs/delivery-queue.ts) and the deliverer
 * consuming it (functions/events/deliver-webhooks.ts), against moto's SQS, KMS and
 * DynamoDB: a message sent with a delay waits in the queue; one received is handed
 * to the deliverer in the SQS event shape Lambda gives it, which opens the webhook's
 * KMS-sealed secret, POSTs the signed event, and on a failure sends the next attempt back
 * to the queue with the schedule's delay.
 */
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { verifyWebhook } from '../../client/index.js';
import { getEvent } from '../../functions/adapters/dynamo/event-reads.js';
import { getWebhook } from '../../functions/adapters/dynamo/webhook-store.js';
import { deliveryQueue } from '../../functions/adapters/sqs/delivery-queue.js';
import { dispatchEvent } from '../../functions/app/webhook-dispatch.js';
import { createWebhook } from '../../functions/app/webhooks.js';
import type { DeliveryMessage } from '../../functions/core/delivery-queue.js';
import { handler as deliver } from '../../functions/events/deliver-webhooks.js';
import { seedDeployment } from '../helpers/seed-deployment.js';
import { receiver } from '../helpers/webhook-receiver.js';

const sqs = new SQSClient({});
const kms = new KMSClient({});
let queueUrl: string;

beforeAll(async () => {
  queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'webhook-deliveries' }))).QueueUrl!;
  process.env.DELIVERY_QUEUE_URL = queueUrl;
  process.env.WEBHOOK_KMS_KEY_ID = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!.KeyId!;
  // The first retry of a failed delivery waits 60 s: long enough to be seen waiting in the queue.
  process.env.WEBHOOK_RETRY_SCHEDULE = '60';
});

beforeEach(() => sqs.send(new PurgeQueueCommand({ QueueUrl: queueUrl })));

afterAll(() => {
  sqs.destroy();
  kms.destroy();
});

/** The messages the queue hands out now (none that still wait out a delay). */
async function receiveNow(): Promise<{ messageId: string; body: string; receiptHandle: string }[]> {
  const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
  await Promise.all(Messages.map((m) => sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle! }))));
  return Messages.map((m) => ({ messageId: m.MessageId!, body: m.Body!, receiptHandle: m.ReceiptHandle! }));
}

async function waitingInQueue(): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessagesDelayed'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessagesDelayed);
}

/** The messages as Lambda's SQS event source hands them to the deliverer. */
const sqsEvent = (messages: { messageId: string; body: string; receiptHandle: string }[]): SQSEvent =>
  ({
    Records: messages.map((m) => ({
      messageId: m.messageId,
      receiptHandle: m.receiptHandle,
      body: m.body,
      attributes: {},
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:webhook-deliveries',
      awsRegion: 'us-east-1',
    })),
  }) as unknown as SQSEvent;

describe('the SQS delivery queue', () => {
  it('sends a message due now to be received at once, with its due time in the body', async () => {
    const message: DeliveryMessage = { orgId: 'org-q', webhookId: 'wh_q', eventSequence: 1, attempt: 1 };
    const now = new Date();
    await deliveryQueue().enqueue(message, 0, now);
    const [received, ...more] = await receiveNow();
    expect(more).toEqual([]);
    expect(JSON.parse(received!.body)).toEqual({ ...message, notBefore: now.getTime() });
  });

  it('sends later messages with a delay SQS holds them for, one due beyond its longest delay (15 minutes) included', async () => {
    await deliveryQueue().enqueue({ orgId: 'org-q', webhookId: 'wh_q', eventSequence: 1, attempt: 2 }, 300);
    await deliveryQueue().enqueue({ orgId: 'org-q', webhookId: 'wh_q', eventSequence: 1, attempt: 3 }, 7200);
    expect(await receiveNow()).toEqual([]);
    expect(await waitingInQueue()).toBe(2);
  });
});

describe('the deliverer consuming the queue', () => {
  it('delivers a dispatched event, signed with the secret KMS sealed; a failed attempt is recorded and the next one waits in the queue', async () => {
    const orgId = `org-sqs-${Date.now()}`;
    await seedDeployment(orgId, { name: 'sqs-delivery', app_type: 'airflow' });
    const event = (await getEvent(orgId, 1))!;
    const hook = await receiver([500]);
    try {
      const webhook = await createWebhook(orgId, { url: hook.url, events: [event.type] }, new Date());
      expect((await getWebhook(orgId, webhook.id))!.secret_sealed).toMatch(/^kms2:/);
      expect(await dispatchEvent(orgId, event)).toBe(1);

      // Attempt 1: the receiver answers 500.
      const first = await receiveNow();
      expect(first).toHaveLength(1);
      expect(await deliver(sqsEvent(first))).toEqual({ batchItemFailures: [] });
      expect(hook.received).toHaveLength(1);
      const { headers, body } = hook.received[0]!;
      expect(JSON.parse(body)).toEqual(event);
      expect(() => verifyWebhook(webhook.secret, headers as Record<string, string>, body)).not.toThrow();
      expect((await getWebhook(orgId, webhook.id))!.delivery_count).toBe(1);

      // Attempt 2 waits out the schedule's delay in SQS.
      expect(await receiveNow()).toEqual([]);
      expect(await waitingInQueue()).toBe(1);

      // A message handed over before its due time goes back to the queue for the rest of the wait, undelivered.
      const early: DeliveryMessage = { orgId, webhookId: webhook.id, eventSequence: 1, attempt: 2, notBefore: Date.now() + 600_000 };
      expect(await deliver(sqsEvent([{ messageId: 'm-early', receiptHandle: 'r-early', body: JSON.stringify(early) }]))).toEqual({
        batchItemFailures: [],
      });
      expect(hook.received).toHaveLength(1);
      expect(await waitingInQueue()).toBe(2);

      // Attempt 2, handed over as due: the receiver answers 204.
      const due: DeliveryMessage = { orgId, webhookId: webhook.id, eventSequence: 1, attempt: 2 };
      await deliver(sqsEvent([{ messageId: 'm-due', receiptHandle: 'r-due', body: JSON.stringify(due) }]));
      expect(hook.received).toHaveLength(2);
      expect((await getWebhook(orgId, webhook.id))!.delivery_count).toBe(2);
    } finally {
      await hook.close();
    }
  });

  it('reports a message it cannot handle as failed, alone, so SQS hands it back', async () => {
    const result = await deliver(
      sqsEvent([
        { messageId: 'm-bad', receiptHandle: 'r-bad', body: 'not json' },
        {
          messageId: 'm-gone',
          receiptHandle: 'r-gone',
          body: JSON.stringify({ orgId: 'org-none', webhookId: 'wh_none', eventSequence: 1, attempt: 1 }),
        },
      ]),
    );
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-bad' }] });
  });
});
