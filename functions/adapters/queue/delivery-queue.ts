/**
 * The queue of webhook deliveries. On AWS, SQS (DELIVERY_QUEUE_URL): its delays stop at
 * 15 minutes, so a message carries its due time and the deliverer puts an early one back
 * for the rest of the wait. Locally the queue is kept in the table: a message becomes
 * visible at its due time, is claimed for a while before it is worked on, and is deleted
 * once handled, so a crash in between only delays it (at least once, nothing lost
 * across restarts); the local host hands it to the deliverer in the shape of an SQS event.
 */
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../lib/config.js';
import { ddb, tableName } from '../dynamo/client.js';
import { queuedDelivery } from '../dynamo/entities.js';

const QUEUE = queuedDelivery.pk.build({ queue: 'webhook-deliveries' });
/** How long a claimed message stays invisible to other pollers. */
const CLAIM_SECONDS = 60;

export interface DeliveryMessage {
  orgId: string;
  webhookId: string;
  eventSequence: number;
  attempt: number;
  /** Epoch ms before which the message must not be delivered (SQS: delays past 15 minutes). */
  notBefore?: number;
}

export interface QueuedMessage {
  /** What the deliverer hands back to delete the message (SQS's receipt handle). */
  receipt: string;
  message: DeliveryMessage;
}

/** SQS's longest delay. */
const SQS_MAX_DELAY_SECONDS = 900;
let sqs: SQSClient | undefined;

export async function enqueueDelivery(message: DeliveryMessage, delaySeconds: number, now = new Date()): Promise<void> {
  const queueUrl = config().webhooks.queueUrl;
  if (queueUrl) {
    sqs ??= new SQSClient({});
    const body = { ...message, notBefore: now.getTime() + delaySeconds * 1000 };
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify(body),
        DelaySeconds: Math.min(delaySeconds, SQS_MAX_DELAY_SECONDS),
      }),
    );
    return;
  }
  const visibleAt = new Date(now.getTime() + delaySeconds * 1000).toISOString();
  await ddb.send(
    new PutCommand({ TableName: tableName(), Item: { pk: QUEUE, sk: `${visibleAt}#${randomUUID()}`, body: JSON.stringify(message) } }),
  );
}

/**
 * Claims up to `max` messages that are due, oldest first. Messages still claimed (a
 * delivery under way, a slow receiver's) may sit at the head of the queue: the query
 * pages past them (its Limit counts items read before the filter), so they never hide
 * due messages behind them.
 */
export async function claimDue(max: number, now = new Date()): Promise<QueuedMessage[]> {
  const claimed: QueuedMessage[] = [];
  let from: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :q AND sk <= :due',
        FilterExpression: 'attribute_not_exists(claimed_until) OR claimed_until < :now',
        ExpressionAttributeValues: { ':q': QUEUE, ':due': `${now.toISOString()}#~`, ':now': now.getTime() },
        Limit: max,
        ExclusiveStartKey: from,
      }),
    );
    for (const item of page.Items ?? []) {
      if (claimed.length === max) break;
      try {
        await ddb.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: { pk: QUEUE, sk: item.sk },
            UpdateExpression: 'SET claimed_until = :until',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(claimed_until) OR claimed_until < :now)',
            ExpressionAttributeValues: { ':until': now.getTime() + CLAIM_SECONDS * 1000, ':now': now.getTime() },
          }),
        );
        claimed.push({ receipt: String(item.sk), message: JSON.parse(String(item.body)) as DeliveryMessage });
      } catch (e) {
        if (!(e instanceof ConditionalCheckFailedException)) throw e;
      }
    }
    from = page.LastEvaluatedKey;
  } while (from && claimed.length < max);
  return claimed;
}

export async function deleteMessage(receipt: string): Promise<void> {
  await ddb.send(new DeleteCommand({ TableName: tableName(), Key: { pk: QUEUE, sk: receipt } }));
}

/**
 * Local queue only: makes every claimed message visible again. The local stack calls it at
 * start-up, when the only poller of its table is itself, so any claim left is a dead
 * process's delivery cut short; without this it would wait out CLAIM_SECONDS first.
 */
export async function releaseClaims(): Promise<number> {
  let released = 0;
  let from: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :q',
        FilterExpression: 'attribute_exists(claimed_until)',
        ExpressionAttributeValues: { ':q': QUEUE },
        ExclusiveStartKey: from,
      }),
    );
    for (const item of page.Items ?? []) {
      try {
        await ddb.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: { pk: QUEUE, sk: item.sk },
            UpdateExpression: 'REMOVE claimed_until',
            ConditionExpression: 'attribute_exists(pk)',
          }),
        );
        released++;
      } catch (e) {
        if (!(e instanceof ConditionalCheckFailedException)) throw e; // deleted meanwhile: nothing to release
      }
    }
    from = page.LastEvaluatedKey;
  } while (from);
  return released;
}
