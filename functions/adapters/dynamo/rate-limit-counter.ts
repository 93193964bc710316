/**
 * Per-key request counters. Both windows live in one item per key and clock hour:
 * `n` counts the hour, `m<minute>` counts each minute of it. One UpdateItem adds 1 to
 * both under a condition that neither is at its limit, so DynamoDB applies the check
 * and the increment as one atomic step: any number of concurrent Lambdas can share a
 * key and exactly the limit succeeds. A refused request is not counted. TTL removes
 * the item after its hour.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Limits, limitExceeded, type Usage, windowsAt } from '../../core/rate-limits.js';
import { ddb, tableName } from './client.js';
import { rateWindowKey } from './item-keys.js';

export async function consumeRequest(keyId: string, limits: Limits, now: Date): Promise<Usage> {
  const w = windowsAt(now);
  const minute = `m${w.minuteOfHour}`;
  try {
    const { Attributes = {} } = await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: rateWindowKey(keyId, w.hourStart),
        UpdateExpression: 'ADD n :one, #m :one SET #ttl = :ttl',
        ConditionExpression: '(attribute_not_exists(n) OR n < :hour) AND (attribute_not_exists(#m) OR #m < :minute)',
        ExpressionAttributeNames: { '#m': minute, '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':hour': limits.perHour, ':minute': limits.perMinute, ':ttl': w.nextHour + 3600 },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { hour: Number(Attributes.n), minute: Number(Attributes[minute]) };
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
    const old = e.Item ? unmarshallCounts(e.Item, minute) : { hour: 0, minute: 0 };
    throw limitExceeded(old.hour >= limits.perHour ? 'hourly' : 'burst', limits, now, old);
  }
}

function unmarshallCounts(item: Record<string, { N?: string }>, minute: string): Usage {
  return { hour: Number(item.n?.N ?? 0), minute: Number(item[minute]?.N ?? 0) };
}
