/**
 * The local stand-in for the SQS delivery queue, kept in the table (the local stack has
 * no queue engine): a message becomes visible at its due time, is claimed for a while
 * before it is worked on, and is deleted once handled, so a crash in between only delays
 * it (at least once, nothing lost across restarts). The event pipeline hands each one to
 * the deliverer in the shape of an SQS event (event-pipeline.ts).
 *
 * Its table requests are the host's, as SQS's own storage would be, not the sending
 * function's: they run outside the function's context (current-function.ts), and the
 * function is judged as sending to the queue instead.
 */
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  PutCommand,
  paginateQuery,
  type QueryCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { queuedDelivery } from '../contract/table/entities.js';
import { ddb, tableName } from '../functions/adapters/dynamo/client.js';
import type { DeliveryMessage, DeliveryQueue } from '../functions/core/delivery-queue.js';
import { runAsHost } from './current-function.js';

const QUEUE = queuedDelivery.pk.build({ queue: 'webhook-deliveries' });
/** How long a claimed message stays invisible to other pollers. */
const CLAIM_SECONDS = 60;

export interface QueuedMessage {
  /** What the deliverer hands back to delete the message (SQS's receipt handle). */
  receipt: string;
  message: DeliveryMessage;
}

export const tableDeliveryQueue: DeliveryQueue = {
  enqueue: (message, delaySeconds, now = new Date()) =>
    runAsHost(async () => {
      const visibleAt = new Date(now.getTime() + delaySeconds * 1000).toISOString();
      await ddb.send(
        new PutCommand({ TableName: tableName(), Item: { pk: QUEUE, sk: `${visibleAt}#${randomUUID()}`, body: JSON.stringify(message) } }),
      );
    }),
};

type Expressions = Pick<QueryCommandInput, 'KeyConditionExpression' | 'FilterExpression' | 'ExpressionAttributeValues'>;

/** The queue's messages (`:q` in the expressions) that match, page by page. */
const queuePages = (query: Expressions, pageSize?: number) =>
  paginateQuery(
    { client: ddb, pageSize },
    { TableName: tableName(), ...query, ExpressionAttributeValues: { ':q': QUEUE, ...query.ExpressionAttributeValues } },
  );

/** Updates one message if its condition holds; false when it does not (claimed or deleted meanwhile). */
async function updateMessage(
  receipt: unknown,
  update: Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeValues'>,
): Promise<boolean> {
  try {
    await ddb.send(new UpdateCommand({ TableName: tableName(), Key: { pk: QUEUE, sk: receipt }, ...update }));
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

/**
 * Claims up to `max` messages that are due, oldest first. Messages still claimed (a
 * delivery under way, a slow receiver's) may sit at the head of the queue: the query
 * pages past them (its Limit counts items read before the filter), so they never hide
 * due messages behind them.
 */
export async function claimDue(max: number, now = new Date()): Promise<QueuedMessage[]> {
  const claimed: QueuedMessage[] = [];
  const due = queuePages(
    {
      KeyConditionExpression: 'pk = :q AND sk <= :due',
      FilterExpression: 'attribute_not_exists(claimed_until) OR claimed_until < :now',
      ExpressionAttributeValues: { ':due': `${now.toISOString()}#~`, ':now': now.getTime() },
    },
    max,
  );
  for await (const page of due) {
    for (const item of page.Items ?? []) {
      const won = await updateMessage(item.sk, {
        UpdateExpression: 'SET claimed_until = :until',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(claimed_until) OR claimed_until < :now)',
        ExpressionAttributeValues: { ':until': now.getTime() + CLAIM_SECONDS * 1000, ':now': now.getTime() },
      });
      if (won) claimed.push({ receipt: String(item.sk), message: JSON.parse(String(item.body)) as DeliveryMessage });
      if (claimed.length === max) return claimed;
    }
  }
  return claimed;
}

export async function deleteMessage(receipt: string): Promise<void> {
  await ddb.send(new DeleteCommand({ TableName: tableName(), Key: { pk: QUEUE, sk: receipt } }));
}

/**
 * Makes every claimed message visible again. The local stack calls it at start-up, when
 * the only poller of its table is itself, so any claim left is a dead process's delivery
 * cut short; without this it would wait out CLAIM_SECONDS first.
 */
export async function releaseClaims(): Promise<number> {
  let released = 0;
  for await (const page of queuePages({ KeyConditionExpression: 'pk = :q', FilterExpression: 'attribute_exists(claimed_until)' })) {
    for (const item of page.Items ?? []) {
      // A message deleted meanwhile has nothing to release.
      if (await updateMessage(item.sk, { UpdateExpression: 'REMOVE claimed_until', ConditionExpression: 'attribute_exists(pk)' }))
        released++;
    }
  }
  return released;
}
