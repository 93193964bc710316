/**
 * An organization's concurrent operation waits (decision 36), across every process:
 * each wait holds one of the organization's slot items for as long as it waits. A slot
 * is a lease: it names its holder and when it lapses, so a slot whose invocation crashed
 * frees itself when its lease ends, and DynamoDB's TTL removes the item later.
 *
 * Taking a slot tries them from a random one on, one conditional Put each, so a wait
 * costs one write to take and one to give back while the organization has room, and
 * a refused one at most one write per slot.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { waitSlotKey } from '../../../contract/table/entities.js';
import { ddb, tableName } from './client.js';

export interface WaitSlot {
  slot: number;
  holder: string;
}

const epochSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** A slot held until `leaseSeconds` from now, or undefined when all `slots` are held. */
export async function takeWaitSlot(orgId: string, slots: number, leaseSeconds: number, now: Date): Promise<WaitSlot | undefined> {
  const holder = randomUUID();
  const first = randomInt(slots);
  const until = epochSeconds(now) + leaseSeconds;
  for (let i = 0; i < slots; i++) {
    const slot = (first + i) % slots;
    try {
      await ddb.send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...waitSlotKey(orgId, slot), holder, lease_until: until, ttl: until },
          ConditionExpression: 'attribute_not_exists(pk) OR lease_until <= :now',
          ExpressionAttributeValues: { ':now': epochSeconds(now) },
        }),
      );
      return { slot, holder };
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
    }
  }
  return undefined;
}

/** Gives the slot back, unless its lease lapsed and another wait holds it now. */
export async function releaseWaitSlot(orgId: string, { slot, holder }: WaitSlot): Promise<void> {
  try {
    await ddb.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: waitSlotKey(orgId, slot),
        ConditionExpression: 'holder = :holder',
        ExpressionAttributeValues: { ':holder': holder },
      }),
    );
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
  }
}
